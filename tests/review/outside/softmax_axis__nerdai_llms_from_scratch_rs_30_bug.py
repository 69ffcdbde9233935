"""MultiHeadAttention takes softmax(masked * scaling, 1) on the [b, num_heads, num_tokens, num_tokens] scores, normalising over the heads instead of the keys (dim -1).

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


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, drop_p, num_heads, qkv_bias=False):
        super().__init__()
        if d_out % num_heads != 0:
            raise ValueError("`d_out` must be divisible by `num_heads`.")
        self.num_heads = num_heads
        self.d_out = d_out
        self.head_dim = d_out // num_heads
        self.w_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.w_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.w_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.scaling = 1.0 / math.sqrt(self.head_dim)
        self.dropout = nn.Dropout(drop_p)

    def forward(self, xs):
        b, num_tokens, _d_in = xs.shape
        queries = self.w_query(xs)
        keys = self.w_key(xs)
        values = self.w_value(xs)

        # reshapes to facilitate getting attn scores each of the individual heads
        # with one matrix multiplication
        queries = queries.reshape(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys = keys.reshape(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.reshape(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        attn_scores = queries.matmul(keys.transpose(-2, -1))

        mask = get_mask(num_tokens)
        masked = masked_fill(attn_scores, mask.expand(b, self.num_heads, -1, -1), float("-inf"))

        # scale
        attn_weights = torch.softmax(masked * self.scaling, 1)  # bug
        # dropout
        attn_weights = self.dropout(attn_weights)

        # context vectors
        context_vec = attn_weights.matmul(values).transpose(1, 2)
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)

        # projection
        return self.out_proj(context_vec)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MultiHeadAttention(d_in=6, d_out=8, drop_p=0.0, num_heads=2).eval()
    xs = torch.randn(2, 4, 6)
    with torch.no_grad():
        return mha(xs)
