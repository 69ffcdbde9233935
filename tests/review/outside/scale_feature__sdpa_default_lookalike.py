"""Heads split to [B, H, T, D] and passed to F.scaled_dot_product_attention with its default scale.

Correct: with scale=None the function divides by sqrt of the last dimension of the query, which is
the head size D here, not the model width.
"""

import torch
from torch import nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=16, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = CausalSelfAttention().eval()
    with torch.no_grad():
        return attn(torch.randn(2, 5, 16))
