"""SelfAttention divides the energy by embed_size ** (1 / 2), the model width, instead of head_dim ** (1 / 2).

Report: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/65
Class: scale_feature
Decidable: code
"""

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, embed_size, heads):
        super().__init__()
        self.embed_size = embed_size
        self.heads = heads
        self.head_dim = embed_size // heads
        self.values = nn.Linear(embed_size, embed_size)
        self.keys = nn.Linear(embed_size, embed_size)
        self.queries = nn.Linear(embed_size, embed_size)
        self.fc_out = nn.Linear(embed_size, embed_size)

    def forward(self, values, keys, query, mask):
        N = query.shape[0]
        value_len, key_len, query_len = values.shape[1], keys.shape[1], query.shape[1]
        values = self.values(values).reshape(N, value_len, self.heads, self.head_dim)
        keys = self.keys(keys).reshape(N, key_len, self.heads, self.head_dim)
        queries = self.queries(query).reshape(N, query_len, self.heads, self.head_dim)
        energy = torch.einsum("nqhd,nkhd->nhqk", [queries, keys])
        if mask is not None:
            energy = energy.masked_fill(mask == 0, float("-1e20"))
        attention = torch.softmax(energy / (self.embed_size ** (1 / 2)), dim=3)  # bug
        out = torch.einsum("nhql,nlhd->nqhd", [attention, values]).reshape(
            N, query_len, self.heads * self.head_dim
        )
        return self.fc_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = SelfAttention(embed_size=32, heads=4).eval()
    x = torch.randn(2, 5, 32)
    mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]).reshape(2, 1, 1, 5)
    with torch.no_grad():
        return attn(x, x, x, mask)
