"""The scaling multiplies the energy inside the softmax (``F.softmax(energy * self.scaling, dim=-1)``), as the fix has it.

Report: https://github.com/FrancescoSaverioZuppichini/ViT/issues/2
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
        self.keys = nn.Linear(emb_size, emb_size)
        self.queries = nn.Linear(emb_size, emb_size)
        self.values = nn.Linear(emb_size, emb_size)
        self.projection = nn.Linear(emb_size, emb_size)
        self.scaling = (self.emb_size // num_heads) ** -0.5

    def split(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.num_heads, -1).transpose(1, 2)  # b n (h d) -> b h n d

    def forward(self, x):
        queries = self.split(self.queries(x))
        keys = self.split(self.keys(x))
        values = self.split(self.values(x))
        energy = torch.einsum(
            "bhqd, bhkd -> bhqk", queries, keys
        )  # batch, num_heads, query_len, key_len
        att = F.softmax(energy * self.scaling, dim=-1)
        out = torch.einsum("bhal, bhlv -> bhav ", att, values)
        out = out.transpose(1, 2).reshape(x.shape)  # b h n d -> b n (h d)
        return self.projection(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(emb_size=64, num_heads=8)
    return attention(torch.randn(2, 5, 64))
