"""A continuation chunk of 4 tokens over 6 cached ones with is_causal=True: top-left alignment
hides the history.

https://github.com/pytorch/executorch/pull/21749
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/pytorch/executorch/pull/21749"

torch.manual_seed(0)
Q = torch.randn(1, 2, 4, 8)  # 4 new tokens
K = torch.randn(1, 2, 10, 8)  # 6 cached + 4 new
V = torch.randn(1, 2, 10, 8)


def wrong() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, V, is_causal=True)


def right() -> torch.Tensor:
    from torch.nn.attention.bias import causal_lower_right

    return F.scaled_dot_product_attention(Q, K, V, attn_mask=causal_lower_right(4, 10))
