"""``is_causal=True`` on a decode step whose keys come from a cache object.

Written from pytorch/pytorch#103082 (SDPA's causal triangle is aligned to the top left, so a
single new query sees key 0 only).  The keys grow inside ``cache.update``, which the checker does
not read (a known miss).
"""

import torch.nn.functional as F


def decode(q, k, v, cache, layer):
    k, v = cache.update(k, v, layer)
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)  # expect: AM302
