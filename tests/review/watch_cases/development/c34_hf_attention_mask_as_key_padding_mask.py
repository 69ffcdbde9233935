"""A Hugging Face attention_mask (1 = real token) passed as key_padding_mask (True = padding): real
tokens are masked.

https://github.com/pytorch/pytorch/pull/39321
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/pull/39321"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2, batch_first=True)
X = torch.randn(2, 4, 8)
ATTENTION = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])  # item 0 has no padding


def wrong() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=ATTENTION.bool())[0]


def right() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=ATTENTION == 0)[0]
