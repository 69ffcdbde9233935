"""The same polarity mistake in a batch where every sequence has padding: no item loses all its
keys, only the wrong ones.

https://github.com/pytorch/pytorch/pull/39321
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/pull/39321"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2, batch_first=True)
X = torch.randn(2, 4, 8)
ATTENTION = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # every item padded


def wrong() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=ATTENTION.bool())[0]


def right() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=ATTENTION == 0)[0]
