"""is_causal=self.causal at a decode step (q_len 1, k_len 7): the new token sees key 0 alone.

https://github.com/open-lm-engine/lm-engine/pull/498
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/open-lm-engine/lm-engine/pull/498"

torch.manual_seed(0)
Q = torch.randn(2, 2, 1, 8)
K = torch.randn(2, 2, 7, 8)


def wrong() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, K, is_causal=True)


def right() -> torch.Tensor:
    return F.scaled_dot_product_attention(Q, K, K, is_causal=Q.size(-2) == K.size(-2))
