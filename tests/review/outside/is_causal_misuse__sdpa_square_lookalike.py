"""F.scaled_dot_product_attention called with is_causal=True and no attn_mask on a full, square self-attention (L == S).

Correct: with no cache the queries and keys cover the same positions, so the top-left causal
triangle that is_causal=True applies is the right one, and no explicit mask is passed with it.
"""

import torch
from torch.nn import functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(2, 2, 5, 8)  # [B, H, T, D]
    q, k, v = x, x.flip(-1), x * 0.5
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
