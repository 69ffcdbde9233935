"""causal_mask returns (triu(ones, diagonal=1) == 0), a keep-mask, and the attention fills where mask == 0.

Correct: the keep-mask is 1 on and below the diagonal, so filling where it is 0 removes exactly the
future keys; -1e9 is far below any score in float32.
"""

import math

import torch


def causal_mask(size):
    mask = torch.triu(torch.ones(1, size, size), diagonal=1).type(torch.int)
    return mask == 0


def attention(query, key, value, mask):
    d_k = query.shape[-1]
    attention_scores = (query @ key.transpose(-2, -1)) / math.sqrt(d_k)
    attention_scores.masked_fill_(mask == 0, -1e9)
    return attention_scores.softmax(dim=-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return attention(q, k, v, causal_mask(4))
