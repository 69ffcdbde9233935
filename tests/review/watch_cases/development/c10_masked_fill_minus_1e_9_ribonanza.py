"""Padding masked with -1e-9 (basically 0): padded positions are attended.

https://github.com/Shujun-He/RibonanzaNet/issues/5
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/Shujun-He/RibonanzaNet/issues/5"

torch.manual_seed(0)
SCORES = torch.randn(2, 2, 5, 5)  # [B, H, L, S]
KEEP = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)[:, None, None, :]


def wrong() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(~KEEP, -1e-9), dim=-1)


def right() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(~KEEP, torch.finfo(torch.float32).min), dim=-1)
