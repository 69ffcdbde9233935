"""Multi-head attention on [n_head*B, L, S] scores with softmax over dim 0 instead of dim 2.

https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/52
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/52"

torch.manual_seed(0)
SCORES = torch.randn(4, 3, 3)  # [n_head * B, L, S]
PADDING = torch.tensor([False, False, True]).expand(4, 3, 3)  # key 2 is padding


def wrong() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(PADDING, -1e9), dim=0)


def right() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(PADDING, -1e9), dim=2)
