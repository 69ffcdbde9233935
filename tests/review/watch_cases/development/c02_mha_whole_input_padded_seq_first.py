"""A sequence-first encoder layer given an example that is all <pad>: key_padding_mask full of
True, NaN loss.

https://github.com/pytorch/pytorch/issues/40932
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/40932"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2)  # sequence first: [T, B, E]
X = torch.randn(5, 3, 8)


def wrong() -> torch.Tensor:
    padding = torch.zeros(3, 5, dtype=torch.bool)
    padding[2] = True  # example 2 is <pad> * max_seq_length
    return MHA(X, X, X, key_padding_mask=padding)[0]


def right() -> torch.Tensor:
    padding = torch.zeros(3, 5, dtype=torch.bool)
    padding[2, 1:] = True
    return MHA(X, X, X, key_padding_mask=padding)[0]
