"""A causal mask built as triu(ones, diagonal=1).bool() and used as the positions to fill with -inf.

Correct: triu with diagonal=1 is True strictly above the diagonal, the future keys; filling those
keeps each token's own position and its past, and no row is emptied.
"""

import math

import torch


def attention(q, k, v):
    T = q.size(-2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    future = torch.triu(torch.ones(T, T), diagonal=1).bool()
    scores = scores.masked_fill(future, float("-inf"))
    return scores.softmax(dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)
    return attention(q, k, v)
