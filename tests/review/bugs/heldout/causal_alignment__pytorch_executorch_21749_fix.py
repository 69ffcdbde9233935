"""A continuation chunk gets an explicit lower-right band (true = attend): the new tokens sit at the tail of the read window and see the whole history.

Report: https://github.com/pytorch/executorch/pull/21749
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


class ReferenceCache:
    def __init__(self):
        self.k = None
        self.v = None

    def update_and_fetch(self, k, v):
        self.k = k if self.k is None else torch.cat([self.k, k], dim=-2)
        self.v = v if self.v is None else torch.cat([self.v, v], dim=-2)
        return self.k, self.v


def attend(cache, q, k, v):
    keys, values = cache.update_and_fetch(k, v)
    if q.size(-2) == 1:
        return F.scaled_dot_product_attention(q, keys, values)
    q_len, total = q.size(-2), keys.size(-2)
    band = torch.ones(q_len, total, dtype=torch.bool).tril(total - q_len)  # lower-right
    return F.scaled_dot_product_attention(q, keys, values, attn_mask=band)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    cache = ReferenceCache()
    x = torch.randn(1, 2, 7, 4)  # (B, H, T, D)
    attend(cache, x[:, :, :4], x[:, :, :4], x[:, :, :4])  # first turn
    return attend(cache, x[:, :, 4:], x[:, :, 4:], x[:, :, 4:])  # continuation chunk
