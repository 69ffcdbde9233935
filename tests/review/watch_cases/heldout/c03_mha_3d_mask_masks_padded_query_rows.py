"""A 3-D attn_mask built to mask padded positions in rows and columns: the padded query row has no
key and its weights are NaN.

https://github.com/pytorch/pytorch/issues/63271
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/63271"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 1, batch_first=True)
X = torch.randn(1, 5, 8)
CAUSAL = torch.ones(5, 5, dtype=torch.bool).triu(1)  # True = masked (nn.MultiheadAttention)


def wrong() -> torch.Tensor:
    mask = CAUSAL.clone()
    mask[4, :] = True  # the padded query's row, masked too
    mask[:, 4] = True
    return MHA(X, X, X, attn_mask=mask[None])[1]


def right() -> torch.Tensor:
    mask = CAUSAL.clone()
    mask[:, 4] = True  # mask the padded key only; the padded query still sees earlier keys
    mask[4, 4] = True
    return MHA(X, X, X, attn_mask=mask[None])[1]
