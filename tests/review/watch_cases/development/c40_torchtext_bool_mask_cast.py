"""RoBERTa's encoder cast a Boolean attention mask to float (True -> 1.0) before
nn.MultiheadAttention: 1.0 is added, not -inf.

https://github.com/pytorch/text/pull/1454
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/text/pull/1454"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2, batch_first=True)
X = torch.randn(2, 4, 8)
FORBIDDEN = torch.ones(4, 4, dtype=torch.bool).triu(1)


def wrong() -> torch.Tensor:
    return MHA(X, X, X, attn_mask=FORBIDDEN.to(X.dtype))[0]


def right() -> torch.Tensor:
    additive = torch.zeros(4, 4).masked_fill(FORBIDDEN, -1e8)
    return MHA(X, X, X, attn_mask=additive)[0]
