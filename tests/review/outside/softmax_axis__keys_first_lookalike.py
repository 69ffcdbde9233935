"""Scores laid out keys-first as [B, S, T] and normalised with softmax over dim=1.

Correct: the einsum puts the key index on axis 1, so dim=1 is the key axis; the weights are then
contracted over that same axis.
"""

import torch
from torch import nn


class KeysFirstAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.scale = dim**-0.5

    def forward(self, x, context):
        q = self.to_q(x)  # [B, T, D]
        k = self.to_k(context)  # [B, S, D]
        scores = torch.einsum("bsd,btd->bst", k, q) * self.scale  # [B, S, T]
        weights = scores.softmax(dim=1)  # over the keys
        return torch.einsum("bst,bsd->btd", weights, context)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = KeysFirstAttention().eval()
    with torch.no_grad():
        return attn(torch.randn(2, 3, 8), torch.randn(2, 5, 8))
