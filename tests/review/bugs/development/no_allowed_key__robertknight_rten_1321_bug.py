"""In grouped-query attention a query row whose scores are all masked (-inf) goes through the softmax as is and comes out NaN.

Report: https://github.com/robertknight/rten/pull/1321
Class: no_allowed_key
"""

import torch


def group_query_attention(q, k, v, attention_bias):
    groups = q.size(1) // k.size(1)
    k = k.repeat_interleave(groups, dim=1)  # (B, H, S, D)
    v = v.repeat_interleave(groups, dim=1)
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + attention_bias
    probs = scores.softmax(dim=-1)  # bug
    return probs @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 4, 3, 8)  # 4 query heads
    k = torch.randn(1, 2, 3, 8)  # 2 key/value heads
    v = torch.randn(1, 2, 3, 8)
    attention_bias = torch.zeros(1, 1, 3, 3)
    attention_bias[..., 2, :] = float("-inf")  # query 2 may attend nothing
    return group_query_attention(q, k, v, attention_bias)
