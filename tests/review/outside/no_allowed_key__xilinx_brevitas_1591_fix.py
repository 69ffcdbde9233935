"""Fully masked rows are detected once the bias is assembled: their bias is reset to 0 before the softmax and their weights zeroed after it, so the output is 0 there, as native SDPA gives, with no NaN.

Report: https://github.com/Xilinx/brevitas/pull/1591
Class: no_allowed_key
"""

import math

import torch
from torch import nn


class QuantScaledDotProductAttention(nn.Module):
    def forward(self, query, key, value, attn_mask=None, scale=None):
        L, S = query.size(-2), key.size(-2)
        scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
        attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
        if attn_mask is not None:
            if attn_mask.dtype == torch.bool:
                attn_bias.masked_fill_(attn_mask.logical_not(), float("-inf"))
            else:
                attn_bias = attn_mask + attn_bias
        fully_masked = torch.isneginf(attn_bias).all(dim=-1, keepdim=True)
        attn_bias = attn_bias.masked_fill(fully_masked, 0.0)
        attn_weight = query @ key.transpose(-2, -1) * scale_factor
        attn_weight = attn_weight + attn_bias
        attn_weight = torch.softmax(attn_weight, dim=-1)
        attn_weight = attn_weight.masked_fill(fully_masked, 0.0)
        return attn_weight @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attn_mask = torch.ones(4, 4, dtype=torch.bool).tril()
    attn_mask[0, :] = False  # a query with nothing to attend to (e.g. a padding token)
    return QuantScaledDotProductAttention()(query, key, value, attn_mask=attn_mask)
