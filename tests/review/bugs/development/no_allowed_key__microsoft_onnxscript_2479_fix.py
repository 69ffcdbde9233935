"""The NaN that a row of -inf gives in the softmax is replaced with 0 (``Where(IsNaN(w), 0, w)``), matching aten's SDPA with a Boolean mask.

Report: https://github.com/microsoft/onnxscript/pull/2479
Class: no_allowed_key
"""

import math

import torch


def _aten_scaled_dot_product_attention_bool_mask_onnx(query, key, value, attn_mask, scale):
    key_transposed = key.transpose(-2, -1)
    # Scale q, k before matmul for stability
    query_scaled = query * math.sqrt(scale)
    key_transposed_scaled = key_transposed * math.sqrt(scale)
    # Turn the Boolean mask to float: attn_mask.masked_fill(not attn_mask, -float('inf'))
    zero = torch.tensor(0.0, dtype=query.dtype)
    neg_inf = torch.tensor(-float("inf"), dtype=query.dtype)
    attn_mask = torch.where(attn_mask, zero, neg_inf)
    attn_weight = torch.softmax(query_scaled @ key_transposed_scaled + attn_mask, dim=-1)
    # a row of -inf (padding) gives 0/0 = NaN in the softmax: handle it as PyTorch does
    attn_weight = torch.where(torch.isnan(attn_weight), zero, attn_weight)
    return attn_weight @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn_mask = torch.ones(2, 4, 8, 8).bool()  # boolean mask for attention
    attn_mask[0, 0, 0, :] = False  # masking an entire row (padding token)
    query = key = value = torch.randn(2, 4, 8, 16)
    return _aten_scaled_dot_product_attention_bool_mask_onnx(
        query, key, value, attn_mask, scale=16**-0.5
    )
