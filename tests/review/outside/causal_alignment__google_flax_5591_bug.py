"""In decode mode MultiHeadAttention already masks the cache by occupancy, but it still overlays is_causal as tril(ones((T, S))); with one query (T=1) against the whole cache (S=max_length) the top-left triangle keeps key 0 alone.

Report: https://github.com/google/flax/issues/5591
Class: causal_alignment
Decidable: values

flax NNX is JAX; this is the smallest faithful reproduction in PyTorch: a decode step writes the new
key/value at cur_index, builds the cache-occupancy mask arange(max_length) <= cur_index, and, with
the is_causal flag the caller kept from prefill, combines it with a top-left causal mask.
"""

import math

import torch


def dot_product_attention(query, key, value, mask=None):
    logits = query @ key.transpose(-1, -2) / math.sqrt(query.size(-1))
    if mask is not None:
        logits = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)
    return logits.softmax(dim=-1) @ value


class MultiHeadAttention(torch.nn.Module):
    def __init__(self, features, max_length):
        super().__init__()
        self.qkv = torch.nn.Linear(features, 3 * features)
        self.max_length = max_length
        self.cached_key = torch.zeros(1, max_length, features)
        self.cached_value = torch.zeros(1, max_length, features)
        self.cache_index = 0

    def forward(self, x, *, decode=False, is_causal=False):
        query, key, value = self.qkv(x).chunk(3, dim=-1)
        mask = None
        if decode:
            cur_index = self.cache_index
            self.cached_key[:, cur_index] = key[:, 0]
            self.cached_value[:, cur_index] = value[:, 0]
            self.cache_index += 1
            key, value = self.cached_key, self.cached_value
            mask = (torch.arange(self.max_length) <= cur_index)[None, :]  # cache occupancy
        if is_causal:
            T, S = query.shape[-2], key.shape[-2]
            causal_mask = torch.ones((T, S), dtype=torch.bool).tril()  # bug
            mask = causal_mask if mask is None else mask & causal_mask  # bug
        return dot_product_attention(query, key, value, mask=mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(features=4, max_length=5)
    tokens = torch.randn(1, 4, 4)
    outs = []
    for t in range(tokens.size(1)):
        outs.append(attention(tokens[:, t : t + 1], decode=True, is_causal=True))
    return torch.cat(outs, dim=1)
