"""Two new tokens attend to a kv cache of four with ``is_causal=True``: SDPA's mask is aligned top-left, so they are cut off from the cache instead of seeing it.

Report: https://github.com/pytorch/pytorch/issues/110144
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    k_cache = torch.randn(1, 2, 4, 8)  # K[:4], (B, H, 4, E)
    v_cache = torch.randn(1, 2, 4, 8)
    q_new, k_new, v_new = torch.randn(3, 1, 2, 2, 8)  # Q[4:6], K[4:6], V[4:6]
    k = torch.cat([k_cache, k_new], dim=2)  # K[:6]
    v = torch.cat([v_cache, v_new], dim=2)
    return F.scaled_dot_product_attention(q_new, k, v, is_causal=True)  # bug
