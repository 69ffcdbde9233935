"""scaled_dot_product_attention: a NaN in a masked-out key still makes the output NaN.

https://github.com/pytorch/pytorch/issues/101967
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/pytorch/pytorch/issues/101967"

Q = torch.arange(8, dtype=torch.float).reshape(1, 2, 4)
ALLOWED = torch.tensor([[[True, False], [True, False]]])


def wrong() -> torch.Tensor:
    k = torch.arange(8, dtype=torch.float).reshape(1, 2, 4)
    k[0, 1, 0] = float("nan")  # the masked-out key
    return F.scaled_dot_product_attention(Q, k, Q, attn_mask=ALLOWED)


def right() -> torch.Tensor:
    k = torch.arange(8, dtype=torch.float).reshape(1, 2, 4)
    k[0, 1, 0] = 0.0  # scrub padded positions before attention
    return F.scaled_dot_product_attention(Q, k, Q, attn_mask=ALLOWED)
