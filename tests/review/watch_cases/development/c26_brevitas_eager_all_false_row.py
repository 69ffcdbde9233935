"""Eager attention: a query row whose Boolean attn_mask is all False gets an all -inf bias and
torch.softmax returns NaN.

https://github.com/Xilinx/brevitas/pull/1591
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/Xilinx/brevitas/pull/1591"

torch.manual_seed(0)
Q, K, V = (torch.randn(1, 1, 3, 4) for _ in range(3))


def attend(allowed: torch.Tensor) -> torch.Tensor:
    bias = torch.zeros(3, 3).masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(Q @ K.transpose(-2, -1) / 2 + bias, dim=-1)
    return weights @ V


def wrong() -> torch.Tensor:
    allowed = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    return attend(allowed)


def right() -> torch.Tensor:
    allowed = torch.tensor([[True, False, False], [True, True, False], [True, True, True]])
    return attend(allowed)
