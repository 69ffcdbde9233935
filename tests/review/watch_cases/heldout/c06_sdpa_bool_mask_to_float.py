"""scaled_dot_product_attention given attn_mask.to(torch.bool).to(torch.float): 0/1 added to the
scores masks nothing.

https://github.com/pytorch/pytorch/issues/103963
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/pytorch/pytorch/issues/103963"

torch.manual_seed(13)
Q, K, V = (torch.rand(1, 1, 8, 8) for _ in range(3))
ALLOWED = torch.zeros(1, 1, 8, 8, dtype=torch.bool)
ALLOWED[..., :, :4] = True


def wrong() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, V, ALLOWED.to(torch.float))


def right() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, V, ALLOWED)
