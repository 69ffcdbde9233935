"""A 2-D Boolean mask passed to SDPA in which some rows are masked out whole (NaN gradients on that
build).

https://github.com/lucidrains/nGPT-pytorch/issues/11
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/lucidrains/nGPT-pytorch/issues/11"

torch.manual_seed(0)
Q, K, V = (torch.randn(1, 2, 4, 8) for _ in range(3))


def wrong() -> torch.Tensor:
    allowed = torch.ones(4, 4, dtype=torch.bool).tril()
    allowed[2] = False  # a fully masked row, by accident
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=allowed)


def right() -> torch.Tensor:
    return F.scaled_dot_product_attention(
        Q, K, V, attn_mask=torch.ones(4, 4, dtype=torch.bool).tril()
    )
