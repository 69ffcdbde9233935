"""A boolean attn_mask is converted to a 0 / -inf additive bias before it is passed as attn_bias, as F.scaled_dot_product_attention does.

Report: https://github.com/huggingface/diffusers/issues/14342
Class: bool_to_float
"""

import math

import torch


def _scaled_dot_product_attention_with_bias(query, key, value, attn_bias):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    scores = scores + attn_bias.to(scores.dtype)
    return scores.softmax(dim=-1) @ value


def _cudnn_attention_forward_op(query, key, value, attn_mask=None):
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros(attn_mask.shape, dtype=query.dtype).masked_fill(
            attn_mask.logical_not(), float("-inf")
        )
    out = _scaled_dot_product_attention_with_bias(query, key, value, attn_bias=attn_mask)
    return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attn_mask = torch.tensor([True, True, False, False]).expand(1, 1, 4, 4)  # True = keep
    return _cudnn_attention_forward_op(query, key, value, attn_mask=attn_mask)
