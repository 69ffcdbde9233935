"""A float mask of finfo(float32).min with a row masked whole: that query averages every value
(uniform weights).

https://github.com/pytorch/pytorch/issues/109517
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/pytorch/pytorch/issues/109517"

torch.manual_seed(0)
Q, K, V = (torch.randn(1, 1, 4, 8) for _ in range(3))
LOW = torch.finfo(torch.float32).min


def wrong() -> torch.Tensor:
    mask = torch.zeros(1, 1, 4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), LOW)
    mask[..., 3, :] = LOW  # query 3: every key masked
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)


def right() -> torch.Tensor:
    mask = torch.zeros(1, 1, 4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), LOW)
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
