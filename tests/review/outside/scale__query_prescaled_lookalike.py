"""MultiHeadAttention divides q by sqrt(dim_per_head) before q @ k^T instead of dividing the scores.

Correct: (q / sqrt(d)) @ k^T equals (q @ k^T) / sqrt(d), so the softmax sees the usual scaled
dot products; the scale is the per-head width, and dividing the smaller q tensor is just cheaper.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, n_heads, dim):
        super().__init__()
        self.n_heads = n_heads
        self.dim = dim
        assert self.dim % self.n_heads == 0
        self.q_lin = nn.Linear(dim, dim)
        self.k_lin = nn.Linear(dim, dim)
        self.v_lin = nn.Linear(dim, dim)
        self.out_lin = nn.Linear(dim, dim)

    def forward(self, input, mask):
        bs, qlen, dim = input.size()
        n_heads = self.n_heads
        dim_per_head = self.dim // n_heads
        mask_reshape = (bs, 1, 1, qlen)

        def shape(x):
            """projection"""
            return x.view(bs, -1, self.n_heads, dim_per_head).transpose(1, 2)

        def unshape(x):
            """compute context"""
            return x.transpose(1, 2).contiguous().view(bs, -1, self.n_heads * dim_per_head)

        q = shape(self.q_lin(input))  # (bs, n_heads, qlen, dim_per_head)
        k = shape(self.k_lin(input))  # (bs, n_heads, klen, dim_per_head)
        v = shape(self.v_lin(input))  # (bs, n_heads, klen, dim_per_head)

        q = q / math.sqrt(dim_per_head)  # (bs, n_heads, qlen, dim_per_head)
        scores = torch.matmul(q, k.transpose(2, 3))  # (bs, n_heads, qlen, klen)
        mask = (mask == 0).view(mask_reshape).expand_as(scores)  # (bs, n_heads, qlen, klen)
        scores = scores.masked_fill(mask, -float("inf"))  # (bs, n_heads, qlen, klen)

        weights = F.softmax(scores.float(), dim=-1).type_as(scores)  # (bs, n_heads, qlen, klen)
        context = torch.matmul(weights, v)  # (bs, n_heads, qlen, dim_per_head)
        context = unshape(context)  # (bs, qlen, dim)
        return self.out_lin(context)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(n_heads=4, dim=16).eval()
    x = torch.randn(2, 5, 16)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    with torch.no_grad():
        return attention(x, mask)
