"""A chunked-prefill continuation sizes its mask from the cache the model really uses, so it matches the returned keys and keeps the causal alignment.

Report: https://github.com/lablup/mlxcel/pull/891
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


class KVCache:
    def __init__(self, offset=0):
        self.offset = offset
        self.keys = None
        self.values = None

    def update_and_fetch(self, k, v):
        self.keys = k if self.keys is None else torch.cat([self.keys, k], dim=-2)
        self.values = v if self.values is None else torch.cat([self.values, v], dim=-2)
        self.offset += k.size(-2)
        return self.keys, self.values


def create_padded_prefill_mask(seq_len, kv_offset):
    rows = torch.arange(seq_len)[:, None] + kv_offset
    cols = torch.arange(kv_offset + seq_len)[None, :]
    return cols <= rows  # (seq_len, kv_offset + seq_len), True = attend


def continue_chunked_prefill(caches, real_cache, q, k, v):
    kv_offset = real_cache.offset
    mask = create_padded_prefill_mask(q.size(-2), kv_offset)
    keys, values = real_cache.update_and_fetch(k, v)
    if mask.size(-1) != keys.size(-2):
        mask = None  # a mask of the wrong width is dropped
    return F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(1, 2, 6, 4)  # (B, H, T, D)
    real_cache = KVCache()
    real_cache.update_and_fetch(x[:, :, :3], x[:, :, :3])  # the first chunk
    placeholders = [KVCache()]
    chunk = x[:, :, 3:]
    return continue_chunked_prefill(placeholders, real_cache, chunk, chunk, chunk)
