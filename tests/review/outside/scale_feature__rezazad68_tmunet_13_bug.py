"""The multi-head attention scales the scores by emb_size ** -0.5, the model width, instead of the head size emb_size // num_heads.

Report: https://github.com/rezazad68/TMUnet/issues/13
Class: scale_feature
Decidable: code
"""

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, emb_size=16, num_heads=4, dropout=0.0):
        super().__init__()
        self.emb_size = emb_size
        self.num_heads = num_heads
        self.qkv = nn.Linear(emb_size, emb_size * 3)
        self.att_drop = nn.Dropout(dropout)
        self.projection = nn.Linear(emb_size, emb_size)
        self.scale = self.emb_size**-0.5  # bug

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv[0], qkv[1], qkv[2]
        energy = torch.einsum("bhqd, bhkd -> bhqk", queries, keys) * self.scale  # bug
        att = torch.softmax(energy, dim=-1)
        att = self.att_drop(att)
        out = torch.einsum("bhal, bhlv -> bhav ", att, values)
        out = out.permute(0, 2, 1, 3).reshape(b, n, -1)
        return self.projection(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MultiHeadAttention().eval()
    x = torch.randn(2, 5, 16)
    with torch.no_grad():
        return mha(x)
