"""The attention scale is taken from the model width (dim ** -0.5), not from the head size.

Report: https://github.com/lucidrains/vit-pytorch/issues/65
Class: scale
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim**-0.5  # bug
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Linear(inner_dim, dim)

    def forward(self, x):
        b, n, _ = x.shape
        h = self.heads
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, h, -1).transpose(1, 2) for t in qkv)  # (b, h, n, d)
        dots = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale  # (b, h, n, n)  # bug
        attn = dots.softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v)  # (b, h, n, d)
        out = out.transpose(1, 2).reshape(b, n, -1)  # (b, n, h * d)
        return self.to_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(dim=64, heads=8, dim_head=8)
    return attention(torch.randn(2, 5, 64) * 3)
