"""nn.MultiheadAttention: a batch item whose every key is padding gives NaN weights and gradients.

https://github.com/pytorch/pytorch/issues/41508
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/41508"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2, batch_first=True)
X = torch.randn(2, 4, 8)


def wrong() -> torch.Tensor:
    padding = torch.tensor([[False, False, True, True], [True, True, True, True]])
    return MHA(X, X, X, key_padding_mask=padding)[0]


def right() -> torch.Tensor:
    padding = torch.tensor([[False, False, True, True], [False, True, True, True]])
    return MHA(X, X, X, key_padding_mask=padding)[0]
