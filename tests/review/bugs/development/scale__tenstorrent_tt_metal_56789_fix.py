"""The scores are scaled by 1/sqrt(head_dim), head_dim read from the query projection.

Report: https://github.com/tenstorrent/tt-metal/pull/56789
Class: scale
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.out_proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        batch, seq, hidden = hidden_states.shape
        head_dim = self.q_proj.weight.shape[0] // self.num_heads
        q = self.q_proj(hidden_states).view(batch, seq, self.num_heads, head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(batch, seq, self.num_heads, head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(batch, seq, self.num_heads, head_dim).transpose(1, 2)
        # scale by 1/sqrt(head_dim)
        scale = 1.0 / math.sqrt(head_dim)
        scores = torch.matmul(q, k.transpose(-2, -1)) * scale  # (batch, heads, seq, seq)
        probs = torch.softmax(scores, dim=-1)
        context = torch.matmul(probs, v).transpose(1, 2).reshape(batch, seq, hidden)
        return self.out_proj(context)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(hidden_size=96, num_heads=3)
    return attention(torch.randn(1, 6, 96))
