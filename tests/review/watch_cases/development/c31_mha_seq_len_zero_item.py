"""seq_len_to_mask with lengths [5, 4, 1, 0]: the empty item's key_padding_mask is all True and its
outputs are NaN.

https://github.com/pytorch/pytorch/issues/27968
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/27968"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2)
X = torch.randn(5, 4, 8)  # [T, B, E]


def padding(lengths: list[int]) -> torch.Tensor:
    return torch.arange(5).expand(4, -1) >= torch.tensor(lengths)[:, None]  # True = padding


def wrong() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=padding([5, 4, 1, 0]))[0]


def right() -> torch.Tensor:
    return MHA(X, X, X, key_padding_mask=padding([5, 4, 1, 1]))[0]
