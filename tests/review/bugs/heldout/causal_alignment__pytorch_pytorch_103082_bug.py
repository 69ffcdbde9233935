"""A kv-cache decoding step calls SDPA with ``is_causal=True`` and L = 1 < S: the causal mask is ``ones(L, S).tril(0)``, aligned top-left, so the new token keeps only the first cached key.

Report: https://github.com/pytorch/pytorch/issues/103082
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def decode_step(q, k_cache, v_cache):
    # q: (N, heads, L=1, E); k_cache, v_cache: (N, heads, S, E)
    return F.scaled_dot_product_attention(q, k_cache, v_cache, is_causal=True)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 1, 8)
    k_cache = torch.randn(1, 2, 8, 8)
    v_cache = torch.randn(1, 2, 8, 8)
    return decode_step(q, k_cache, v_cache)
