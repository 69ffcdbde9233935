"""A non-Boolean (0/1) attn_mask added to the scores in a hand-written ScaledDotProductAttention:
nothing is masked after the softmax.

https://github.com/timeseriesAI/tsai/issues/171
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/timeseriesAI/tsai/issues/171"

torch.manual_seed(0)
SCORES = torch.randn(2, 2, 4, 4)
FUTURE = torch.ones(4, 4).triu(1)  # 1 = masked, as a float


def wrong() -> torch.Tensor:
    return F.softmax(SCORES + FUTURE, dim=-1)


def right() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(FUTURE.bool(), float("-inf")), dim=-1)
