"""The width-based scale with einsum scores.

Written from lucidrains/vit-pytorch#65 (``self.scale = dim ** -0.5`` where the head size was
meant).
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.scale = dim**-0.5  # expect: AM502

    def forward(self, q, k, v):
        dots = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale
        attn = dots.softmax(dim=-1)
        return torch.einsum("bhij,bhjd->bhid", attn, v)
