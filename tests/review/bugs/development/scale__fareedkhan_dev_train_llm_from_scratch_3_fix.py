"""The scores are scaled by 1/sqrt(head_size), as the pull request has it.

Report: https://github.com/FareedKhan-dev/train-llm-from-scratch/pull/3
Class: scale
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self, n_embed, head_size, context_length):
        super().__init__()
        self.key = nn.Linear(n_embed, head_size, bias=False)
        self.query = nn.Linear(n_embed, head_size, bias=False)
        self.value = nn.Linear(n_embed, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(context_length, context_length)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)  # (B, T, head_size)
        q = self.query(x)  # (B, T, head_size)
        scale_factor = 1 / math.sqrt(k.shape[-1])
        attn_weights = q @ k.transpose(-2, -1) * scale_factor  # (B, T, T)
        attn_weights = attn_weights.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        attn_weights = F.softmax(attn_weights, dim=-1)
        v = self.value(x)
        return attn_weights @ v  # (B, T, head_size)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    head = Head(n_embed=48, head_size=12, context_length=8)
    return head(torch.randn(2, 6, 48) * 3)
