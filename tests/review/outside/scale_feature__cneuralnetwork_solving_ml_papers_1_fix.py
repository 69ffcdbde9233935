"""Each causal Head scales q @ k^T by k.size(-1)**-0.5, the key width head_size.

Report: https://github.com/cneuralnetwork/solving-ml-papers/issues/1
Class: scale_feature
"""

import torch
import torch.nn as nn
from torch.nn import functional as F

block_size = 8
n_embd = 64
n_head = 4
dropout = 0.0


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.size(-1) ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)
        out = wei @ v
        return out


class MultiHeadAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        out = self.dropout(self.proj(out))
        return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    sa = MultiHeadAttention(n_head, n_embd // n_head).eval()
    x = torch.randn(2, 6, n_embd) * 2.0
    with torch.no_grad():
        return sa(x)
