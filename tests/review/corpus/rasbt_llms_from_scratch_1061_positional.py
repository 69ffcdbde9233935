"""The same inverted causal mask, passed positionally and built from ``ones_like``.

Written from rasbt/LLMs-from-scratch#1061 (a "future" mask, True above the diagonal, given to
SDPA, which reads True as may attend).
"""

import torch
import torch.nn.functional as F


def causal_attention(q, k, v):
    scores_shape = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool, device=q.device)
    future = scores_shape.triu(1)
    return F.scaled_dot_product_attention(q, k, v, future)  # expect: AM101
