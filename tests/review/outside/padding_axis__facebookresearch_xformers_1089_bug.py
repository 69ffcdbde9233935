"""A [B, L] key padding mask is repeated to [B, L, L] as "b l -> b l l_prime", which copies it along the key axis: each query row becomes all kept or all masked, so real queries still attend to the padded keys and the padded queries get rows of -inf (NaN).

Report: https://github.com/facebookresearch/xformers/issues/1089
Class: padding_axis
Decidable: code

The report writes the repeat with einops; it is written here with expand, which builds the same
tensor. The attention is xformers' scaled_dot_product_attention core (boolean mask: True = keep).
"""

import math

import torch
from torch import nn


def scaled_dot_product_attention(q, k, v, att_mask):
    q = q / math.sqrt(k.size(-1))
    att = q @ k.transpose(-2, -1)
    att = att.masked_fill(att_mask.logical_not(), float("-inf"))  # bug
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
            mask = mask[:, :, None].expand(b, l, l)  # "b l -> b l l_prime"  # bug
        out = scaled_dot_product_attention(q, k, v, att_mask=mask)
        return self.to_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = Attention(dim=8)
    x = torch.randn(2, 4, 8)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])  # True = real token
    return attn.xformers_scaled_dot_product_attention(x, mask=mask)
