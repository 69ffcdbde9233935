"""The step passes ``causal_lower_right(L, S)`` (the mechanism the maintainers point to): the causal mask is aligned bottom-right and the new token sees the whole cache.

Report: https://github.com/pytorch/pytorch/issues/103082
Class: causal_alignment
"""

import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right


def decode_step(q, k_cache, v_cache):
    # q: (N, heads, L=1, E); k_cache, v_cache: (N, heads, S, E)
    attn_bias = causal_lower_right(q.shape[-2], k_cache.shape[-2])
    return F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=attn_bias)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 1, 8)
    k_cache = torch.randn(1, 2, 8, 8)
    v_cache = torch.randn(1, 2, 8, 8)
    return decode_step(q, k_cache, v_cache)
