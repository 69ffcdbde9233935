"""The function returns the lower triangle, True = may attend, which is what SDPA's Boolean attn_mask means.

Report: https://github.com/rasbt/LLMs-from-scratch/issues/1061
Class: polarity
"""

import torch
from torch import nn


def causal_mask(num_tokens):
    return torch.tril(torch.ones(num_tokens, num_tokens), diagonal=0).bool()


def sdpa_attention(queries, keys, values):
    num_tokens = queries.shape[-2]
    attn_mask = causal_mask(num_tokens)
    return nn.functional.scaled_dot_product_attention(
        queries,
        keys,
        values,
        attn_mask=attn_mask,
        is_causal=False,
    )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries, keys, values = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return sdpa_attention(queries, keys, values)
