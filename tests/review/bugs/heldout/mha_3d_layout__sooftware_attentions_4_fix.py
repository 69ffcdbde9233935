"""Queries, keys, values and the mask all use the head-major layout: the mask is repeated with ``unsqueeze(0).repeat(num_heads, 1, 1, 1)``.

Report: https://github.com/sooftware/attentions/issues/4
Class: mha_3d_layout
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.sqrt_dim = math.sqrt(dim)

    def forward(self, query, key, value, mask=None):
        score = torch.bmm(query, key.transpose(1, 2)) / self.sqrt_dim
        if mask is not None:
            score.masked_fill_(mask.view(score.size()), -float("Inf"))
        attn = F.softmax(score, -1)
        return torch.bmm(attn, value)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model=8, num_heads=2):
        super().__init__()
        self.d_head = d_model // num_heads
        self.num_heads = num_heads
        self.scaled_dot_attn = ScaledDotProductAttention(self.d_head)
        self.query_proj = nn.Linear(d_model, d_model)
        self.key_proj = nn.Linear(d_model, d_model)
        self.value_proj = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        batch_size = value.size(0)
        query = self.query_proj(query).view(batch_size, -1, self.num_heads, self.d_head)
        key = self.key_proj(key).view(batch_size, -1, self.num_heads, self.d_head)
        value = self.value_proj(value).view(batch_size, -1, self.num_heads, self.d_head)
        query = (
            query.permute(2, 0, 1, 3)
            .contiguous()
            .view(batch_size * self.num_heads, -1, self.d_head)
        )
        key = (
            key.permute(2, 0, 1, 3).contiguous().view(batch_size * self.num_heads, -1, self.d_head)
        )
        value = (
            value.permute(2, 0, 1, 3)
            .contiguous()
            .view(batch_size * self.num_heads, -1, self.d_head)
        )
        if mask is not None:
            mask = mask.unsqueeze(0).repeat(self.num_heads, 1, 1, 1)
        context = self.scaled_dot_attn(query, key, value, mask)
        context = context.view(self.num_heads, batch_size, -1, self.d_head)
        return (
            context.permute(1, 2, 0, 3)
            .contiguous()
            .view(batch_size, -1, self.num_heads * self.d_head)
        )


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(2, 4, 8)
    mask = torch.zeros(2, 4, 4, dtype=torch.bool)
    mask[1, :, 1:] = True  # sample 1 has one real token
    return MultiHeadAttention()(x, x, x, mask)
