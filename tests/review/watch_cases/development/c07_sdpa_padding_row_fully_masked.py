"""SDPA with a padding mask that leaves a query no key: NaN up to torch 2.4, a row of zeros since.

https://github.com/pytorch/pytorch/issues/103749
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/pytorch/pytorch/issues/103749"

torch.manual_seed(0)
Q, K, V = (torch.randn(2, 1, 4, 8) for _ in range(3))


def wrong() -> torch.Tensor:
    allowed = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    allowed[1, :, :, 2:] = False
    allowed[1, :, 2:, :] = False  # padded queries of item 1 masked as rows too
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=allowed)


def right() -> torch.Tensor:
    allowed = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    allowed[1, :, :, 2:] = False  # keys only: every query keeps keys 0 and 1
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=allowed)
