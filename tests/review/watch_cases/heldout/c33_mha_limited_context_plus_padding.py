"""Bucketed attention: a limited-context attn_mask and key_padding_mask together leave a query no
key; NaN in the weights and gradients.

https://github.com/pytorch/pytorch/pull/42323
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/pull/42323"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 1)
X = torch.randn(4, 2, 8)  # [T, B, E]
CONTEXT = torch.ones(4, 4, dtype=torch.bool)
for i in range(4):
    CONTEXT[i, max(0, i - 1) : i + 1] = False  # query i sees keys i-1 and i (True = masked)


def wrong() -> torch.Tensor:
    padding = torch.tensor([[False] * 4, [False, False, True, True]])
    return MHA(X, X, X, attn_mask=CONTEXT, key_padding_mask=padding)[1]


def right() -> torch.Tensor:
    padding = torch.tensor([[False] * 4, [False, False, False, True]])
    context = CONTEXT.clone()
    context[3, 2] = True
    context[3, 0] = False  # query 3 reaches back to a real key
    return MHA(X, X, X, attn_mask=context, key_padding_mask=padding)[1]
