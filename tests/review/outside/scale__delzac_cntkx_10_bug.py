"""scaled_dot_product_attention divides the query-key products by dk, the query width itself, instead of by sqrt(dk) (the C.sqrt is missing).

Report: https://github.com/delzac/cntkx/issues/10
Class: scale
Decidable: code
"""

import torch


def scaled_dot_product_attention(query, key, value):
    """query: [#, *] [-3, dim], key and value: [#] [-3, dim]."""
    dk = torch.ones_like(query).sum(dim=-1, keepdim=True)  # [#, *] [1, ] and value = int(dim_of_query)
    scaled = torch.matmul(query, key.transpose(-1, -2)) / dk  # bug
    attention_weights = torch.softmax(scaled, dim=-1)  # bug
    attended = torch.matmul(attention_weights, value)
    return attended


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 4, 16)
    key = torch.randn(2, 6, 16)
    value = torch.randn(2, 6, 16)
    return scaled_dot_product_attention(query, key, value)
