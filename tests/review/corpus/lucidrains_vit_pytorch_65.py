"""The scale taken from the model width instead of the head size.

Written from lucidrains/vit-pytorch#65 (``self.scale = dim ** -0.5``).
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        self.heads = heads
        self.scale = dim**-0.5  # expect: AM502
        self.attend = nn.Softmax(dim=-1)

    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
