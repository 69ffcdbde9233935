"""DynamicKVCacheLayer.attention_mask aligns the causal edge bottom-right (tril with k = total - suffix) but cuts the sliding window with triu(k = 1 - sliding_window_size), top-left aligned, so with a cached prefix each new query sees keys further back than its window.

Report: https://github.com/trymirai/lalamo/pull/200
Class: causal_alignment
Decidable: code
"""

import math

import torch


class DynamicKVCacheLayer:
    def __init__(self, keys, values):
        self.keys = keys  # [tokens, heads, head_dim]
        self.values = values

    def attention_mask(self, suffix_length, is_causal, sliding_window_size=None):
        total_num_tokens, _, _ = self.keys.shape
        result = torch.ones((suffix_length, total_num_tokens), dtype=torch.bool)
        if is_causal:
            result = torch.tril(result, diagonal=total_num_tokens - suffix_length)
            if sliding_window_size is not None:
                result = torch.triu(result, diagonal=1 - sliding_window_size)  # bug
        elif sliding_window_size is not None:
            top_zeroed = torch.tril(result, diagonal=sliding_window_size // 2)
            result = torch.triu(top_zeroed, diagonal=-sliding_window_size // 2)
        return result


def attention(queries, kv_cache, sliding_window_size):
    """queries: [suffix_tokens, heads, head_dim], attending to every cached and new key."""
    suffix_length = queries.shape[0]
    mask = kv_cache.attention_mask(suffix_length, True, sliding_window_size)  # bug
    scores = torch.einsum("qhd,khd->hqk", queries, kv_cache.keys) / math.sqrt(queries.shape[-1])
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return torch.einsum("hqk,khd->qhd", weights, kv_cache.values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    keys = torch.randn(8, 2, 4)  # six cached tokens and two new ones
    values = torch.randn(8, 2, 4)
    queries = torch.randn(2, 2, 4)
    return attention(queries, DynamicKVCacheLayer(keys, values), sliding_window_size=3)
