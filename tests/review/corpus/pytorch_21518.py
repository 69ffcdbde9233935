"""A Boolean mask turned ``.float()`` and passed to MultiheadAttention, which adds it.

Written from pytorch/pytorch#21518 (a float mask of 0 / 1 read as an additive mask).
"""

import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads)

    def forward(self, x):
        size = x.size(0)
        future = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)
        out, _ = self.attn(x, x, x, attn_mask=future.float())  # expect: AM201
        return out
