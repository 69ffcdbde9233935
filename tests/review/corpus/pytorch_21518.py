"""A 0/1 causal mask handed to MultiheadAttention, which adds a float mask to the scores.

Written from pytorch/pytorch#21518 (``attn_mask`` of ``nn.MultiheadAttention`` is additive): a
``torch.tril(torch.ones(...))`` of ones and zeros, meant to keep the past, shifts the scores by 1
and forbids nothing.
"""

import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads)

    def forward(self, x):
        size = x.size(0)
        keep = torch.tril(torch.ones((size, size)))
        out, _ = self.attn(x, x, x, attn_mask=keep)  # expect: AM201
        return out
