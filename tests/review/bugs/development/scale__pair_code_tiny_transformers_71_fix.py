"""The raw scores are divided by sqrt(d_k) before the softmax, as the report asks.

Report: https://github.com/PAIR-code/tiny-transformers/issues/71
Class: scale
"""

import torch


def attention(query, key, value):
    # query, key, value: (batch, heads, seq, d_k)
    raw_attention = query @ key.transpose(-2, -1)  # (batch, heads, seq, seq)
    raw_attention = raw_attention / query.shape[-1] ** 0.5
    weights = torch.softmax(raw_attention, dim=-1)
    return weights @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 5, 16).unbind(0)
    return attention(q, k, v)
