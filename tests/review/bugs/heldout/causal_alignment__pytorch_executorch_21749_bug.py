"""The reference cache declares CAUSAL for a continuation chunk and applies torch's ``is_causal``, aligned top-left: the chunk's first query attends key 0 alone instead of the history.

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
    return F.scaled_dot_product_attention(q, keys, values, is_causal=True)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    cache = ReferenceCache()
    x = torch.randn(1, 2, 7, 4)  # (B, H, T, D)
    attend(cache, x[:, :, :4], x[:, :, :4], x[:, :, :4])  # first turn
    return attend(cache, x[:, :, 4:], x[:, :, 4:], x[:, :, 4:])  # continuation chunk
