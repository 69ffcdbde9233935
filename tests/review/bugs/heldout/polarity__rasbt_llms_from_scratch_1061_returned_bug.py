"""A function returns the triu(...).bool() future mask (True = the future) and the caller passes it to SDPA, which reads True as may attend.

Report: https://github.com/rasbt/LLMs-from-scratch/issues/1061
Class: polarity
"""

import torch
from torch import nn


def causal_mask(num_tokens):
    return torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()  # bug


def sdpa_attention(queries, keys, values):
    num_tokens = queries.shape[-2]
    attn_mask = causal_mask(num_tokens)  # bug
    return nn.functional.scaled_dot_product_attention(
        queries,
        keys,
        values,
        attn_mask=attn_mask,  # bug
        is_causal=False,
    )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries, keys, values = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return sdpa_attention(queries, keys, values)
