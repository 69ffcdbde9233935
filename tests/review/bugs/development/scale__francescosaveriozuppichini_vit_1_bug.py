"""The scaling is the square root of emb_size, the whole width, not of emb_size // num_heads.

Report: https://github.com/FrancescoSaverioZuppichini/ViT/issues/1
Class: scale
"""

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, emb_size=768, num_heads=8):
        super().__init__()
        self.emb_size = emb_size
        self.num_heads = num_heads
        self.qkv = nn.Linear(emb_size, emb_size * 3)
        self.projection = nn.Linear(emb_size, emb_size)

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv[0], qkv[1], qkv[2]  # (b, h, n, d)
        energy = torch.einsum("bhqd, bhkd -> bhqk", queries, keys)  # (b, h, n, n)
        scaling = self.emb_size ** (1 / 2)  # bug
        att = F.softmax(energy / scaling, dim=-1)  # bug
        out = torch.einsum("bhal, bhlv -> bhav ", att, values)  # (b, h, n, d)
        out = out.transpose(1, 2).reshape(b, n, -1)
        return self.projection(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(emb_size=64, num_heads=8)
    return attention(torch.randn(2, 5, 64) * 3)
