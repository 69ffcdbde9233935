"""The [B, L] key padding mask is repeated as "b l -> b l_prime l", so it varies along the key axis and every query ignores the padded keys, as the standard attention it is compared with does.

Report: https://github.com/facebookresearch/xformers/issues/1089
Class: padding_axis
"""

import math

import torch
from torch import nn


def scaled_dot_product_attention(q, k, v, att_mask):
    q = q / math.sqrt(k.size(-1))
    att = q @ k.transpose(-2, -1)
    att = att.masked_fill(att_mask.logical_not(), float("-inf"))
    att = torch.softmax(att, dim=att.ndim - 1)
    return att @ v


class Attention(nn.Module):
    def __init__(self, dim, heads=1):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def xformers_scaled_dot_product_attention(self, x, mask=None):
        b, l, _, h = *x.shape, self.heads
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        if mask.ndim == 2:
            mask = mask[:, None, :].expand(b, l, l)  # "b l -> b l_prime l"
        out = scaled_dot_product_attention(q, k, v, att_mask=mask)
        return self.to_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = Attention(dim=8)
    x = torch.randn(2, 4, 8)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])  # True = real token
    return attn.xformers_scaled_dot_product_attention(x, mask=mask)
