"""attn_mask = torch.triu(ones, 1).bool() passed to SDPA, where True means may attend: the future
is attended.

https://github.com/rasbt/LLMs-from-scratch/issues/1061
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/rasbt/LLMs-from-scratch/issues/1061"

torch.manual_seed(0)
Q, K, V = (torch.randn(1, 2, 5, 8) for _ in range(3))
FUTURE = torch.triu(torch.ones(5, 5), diagonal=1).bool()


def wrong() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=FUTURE)


def right() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=~FUTURE)
