"""The causal buffer is ``tril`` of ones and the code forbids where it is 0: the future is forbidden.

Report: https://github.com/karpathy/nanoGPT/issues/170
Class: causal_diagonal
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, block_size):
        super().__init__()
        bias = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("bias", bias.view(1, 1, block_size, block_size))

    def forward(self, q, k, v):
        t = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, T)
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ v  # (B, nh, T, hs)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 5, 4)
    return CausalSelfAttention(8)(q, k, v)
