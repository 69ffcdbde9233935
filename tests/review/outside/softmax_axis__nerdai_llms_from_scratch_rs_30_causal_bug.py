"""CausalAttention takes softmax(masked * scaling, 1) on the [b, num_tokens, num_tokens] causal scores, normalising each key's column over the queries instead of each query's row over the keys.

Report: https://github.com/nerdai/llms-from-scratch-rs/pull/30
Class: softmax_axis
Decidable: code
"""

import math

import torch
from torch import nn


def get_mask(size: int) -> torch.Tensor:
    # 1 where key j comes after query i
    return torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)


def masked_fill(on_false: torch.Tensor, mask: torch.Tensor, on_true: float) -> torch.Tensor:
    return torch.where(mask, torch.full_like(on_false, on_true), on_false)


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, drop_p, qkv_bias=False):
        super().__init__()
        self.w_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.w_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.w_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.scaling = 1.0 / math.sqrt(self.w_key.weight.shape[0])
        self.dropout = nn.Dropout(drop_p)

    def forward(self, xs):
        # handles batches now
        b, num_tokens, _d_in = xs.shape
        queries = self.w_query(xs)
        keys = self.w_key(xs)
        values = self.w_value(xs)

        attn_scores = queries.matmul(keys.transpose(-2, -1))
        mask = get_mask(num_tokens)
        masked = masked_fill(attn_scores, mask.expand(b, -1, -1), float("-inf"))

        # scale
        attn_weights = torch.softmax(masked * self.scaling, 1)  # bug
        # dropout
        attn_weights = self.dropout(attn_weights)

        # context vectors
        return attn_weights.matmul(values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = CausalAttention(d_in=6, d_out=8, drop_p=0.0).eval()
    xs = torch.randn(2, 4, 6)
    with torch.no_grad():
        return attention(xs)
