"""Heads are split with ``view(batch_size, seq_len, num_heads, dim).transpose(1, 2)``: row ``b * num_heads + h`` is head h of sample b, where the batch-major mask applies.

Report: https://github.com/reczoo/FuxiCTR/issues/30
Class: mha_3d_layout
"""

import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, input_dim, attention_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.attention_dim = attention_dim
        self.W_q = nn.Linear(input_dim, attention_dim * num_heads, bias=False)
        self.W_k = nn.Linear(input_dim, attention_dim * num_heads, bias=False)
        self.W_v = nn.Linear(input_dim, attention_dim * num_heads, bias=False)

    def split(self, x, batch_size):
        x = x.view(batch_size, -1, self.num_heads, self.attention_dim).transpose(1, 2)
        return x.reshape(batch_size * self.num_heads, -1, self.attention_dim)

    def forward(self, x, padding_mask):
        batch_size = x.size(0)
        query = self.split(self.W_q(x), batch_size)
        key = self.split(self.W_k(x), batch_size)
        value = self.split(self.W_v(x), batch_size)
        mask = padding_mask[:, None, :].repeat_interleave(self.num_heads, dim=0)  # (B*H, 1, S)
        scores = query @ key.transpose(1, 2) / self.attention_dim**0.5
        scores = scores.masked_fill(mask, -1e9)
        return scores.softmax(dim=-1) @ value  # (B*H, L, d)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadSelfAttention(8, 4, 2)
    x = torch.randn(2, 3, 8)
    padding_mask = torch.tensor([[False, False, False], [False, True, True]])
    return attention(x, padding_mask)
