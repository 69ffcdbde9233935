"""F.scaled_dot_product_attention given a boolean tril mask: True where a query may attend.

Correct: for scaled_dot_product_attention a boolean True means "takes part", and tril is True on
and below the diagonal, the allowed causal positions.
"""

import torch
from torch.nn import functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attn_mask = torch.ones(4, 4, dtype=torch.bool).tril()
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
