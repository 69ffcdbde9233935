"""Attention pooling takes the softmax over an axis of size 1: every one of the 4 observations gets
weight 1.

https://github.com/catalyst-team/catalyst/pull/285
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/catalyst-team/catalyst/pull/285"

torch.manual_seed(0)
SCORES = torch.randn(2, 1, 4)  # [B, 1, observations]


def wrong() -> torch.Tensor:
    return torch.softmax(SCORES, dim=1)


def right() -> torch.Tensor:
    return torch.softmax(SCORES, dim=2)
