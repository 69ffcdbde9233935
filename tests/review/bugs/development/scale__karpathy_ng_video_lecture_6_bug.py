"""One head of self-attention scales by C ** -0.5, C being the embedding width, not the head size.

Report: https://github.com/karpathy/ng-video-lecture/pull/6
Class: scale
"""

import torch
import torch.nn.functional as F
from torch import nn

n_embd = 32
block_size = 8


class Head(nn.Module):
    """one head of self-attention"""

    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)  # (B,T,hs)
        q = self.query(x)  # (B,T,hs)
        wei = q @ k.transpose(-2, -1) * C**-0.5  # (B, T, T)  # bug
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T)
        v = self.value(x)  # (B,T,hs)
        return wei @ v  # (B, T, hs)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    head = Head(head_size=8)
    return head(torch.randn(2, block_size, n_embd) * 3)
