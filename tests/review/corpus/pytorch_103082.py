"""``is_causal=True`` on a decode step with a KV cache: the new query sees key 0 only.

Written from pytorch/pytorch#103082 (SDPA's is_causal is aligned to the top left).
"""

import torch
import torch.nn.functional as F


def decode(q, k, v, cache_k, cache_v):
    k = torch.cat((cache_k, k), dim=2)
    v = torch.cat((cache_v, v), dim=2)
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)  # expect: AM302
