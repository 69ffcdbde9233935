"""energy.masked_fill(mask == 0, -inf) in 16-bit training: rows whose mask is all 0 give NaN loss.

https://github.com/bentrevett/pytorch-seq2seq/issues/191
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/bentrevett/pytorch-seq2seq/issues/191"

torch.manual_seed(0)
ENERGY = torch.randn(2, 1, 3, 3)  # [B, H, L, S]


def wrong() -> torch.Tensor:
    mask = torch.tensor([[1, 1, 0], [0, 0, 0]])[:, None, None, :]  # item 1: no token
    return torch.softmax(ENERGY.masked_fill(mask == 0, float("-inf")), dim=-1)


def right() -> torch.Tensor:
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])[:, None, None, :]
    return torch.softmax(ENERGY.masked_fill(mask == 0, float("-inf")), dim=-1)
