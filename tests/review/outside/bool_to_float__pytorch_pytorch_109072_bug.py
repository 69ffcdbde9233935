"""The documented reference implementation of scaled_dot_product_attention fills the boolean attn_mask itself instead of attn_bias, so a boolean mask never reaches the scores.

Report: https://github.com/pytorch/pytorch/issues/109072
Class: bool_to_float
Decidable: code
"""

import math

import torch


def scaled_dot_product_attention(query, key, value, attn_mask=None, scale=None):
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=query.dtype)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_mask.masked_fill_(attn_mask.logical_not(), float("-inf"))  # bug
        else:
            attn_bias += attn_mask
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias  # bug
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attn_mask = torch.ones(4, 4, dtype=torch.bool).tril()
    return scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
