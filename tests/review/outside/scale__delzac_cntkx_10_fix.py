"""scaled_dot_product_attention divides the query-key products by sqrt(dk), the square root of the query width.

Report: https://github.com/delzac/cntkx/issues/10
Class: scale
"""

import torch


def scaled_dot_product_attention(query, key, value):
    """query: [#, *] [-3, dim], key and value: [#] [-3, dim]."""
    dk = torch.ones_like(query).sum(dim=-1, keepdim=True)  # [#, *] [1, ] and value = int(dim_of_query)
    scaled = torch.matmul(query, key.transpose(-1, -2)) / torch.sqrt(dk)
    attention_weights = torch.softmax(scaled, dim=-1)
    attended = torch.matmul(attention_weights, value)
    return attended


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 4, 16)
    key = torch.randn(2, 6, 16)
    value = torch.randn(2, 6, 16)
    return scaled_dot_product_attention(query, key, value)
