"""The bias uses the dtype's own lowest finite value in float16, as the fix (google/flax#1527) does.

Report: https://github.com/google/flax/issues/982
Class: overflow_constant
"""

import torch


def make_attention_bias(mask, dtype):
    # mask: (batch, 1, q_len, kv_len), 1 = may attend
    big_neg = torch.finfo(dtype).min if dtype == torch.float16 else -1e10
    return torch.where(
        mask > 0,
        torch.full(mask.shape, 0.0).to(dtype),
        torch.full(mask.shape, big_neg).to(dtype),
    )


def dot_product_attention(query, key, value, bias):
    # query, key, value: (batch, len, heads, depth)
    query = query / query.shape[-1] ** 0.5
    attn_weights = torch.einsum("bqhd,bkhd->bhqk", query, key)  # (batch, heads, q, kv)
    attn_weights = torch.softmax(attn_weights + bias, dim=-1)
    return torch.einsum("bhqk,bkhd->bqhd", attn_weights, value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 3, 1, 4).half().unbind(0)
    padding = torch.tensor([[1, 1, 0], [0, 0, 0]])  # the second item is all padding
    mask = padding[:, None, None, :].expand(2, 1, 3, 3)
    return dot_product_attention(query, key, value, make_attention_bias(mask, torch.float16))
