"""nn.MultiheadAttention with a per-head attn_mask that hides every key from one head: NaN with
need_weights=True.

https://github.com/pytorch/pytorch/issues/160064
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/160064"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(3, 3, batch_first=True)
X = torch.randn(1, 5, 3)


def wrong() -> torch.Tensor:
    masked = torch.tensor([False, False, True]).view(-1, 1, 1).expand(-1, 5, 5)  # True = masked
    return MHA(X, X, X, attn_mask=masked, need_weights=True, average_attn_weights=False)[1]


def right() -> torch.Tensor:
    masked = torch.tensor([False, False, True]).view(-1, 1, 1).expand(-1, 5, 5)
    own = torch.eye(5, dtype=torch.bool)  # head 2 may still see each token itself
    return MHA(X, X, X, attn_mask=masked & ~own, need_weights=True, average_attn_weights=False)[1]
