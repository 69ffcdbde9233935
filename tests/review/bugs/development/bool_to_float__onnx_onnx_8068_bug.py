"""The Boolean attn_mask (True = attend) is turned into a bias as (1 - attn_mask) * -inf, which is 0 * -inf = NaN at every allowed cell.

Report: https://github.com/onnx/onnx/pull/8068
Class: bool_to_float
"""

import torch


def attention(q, k, v, attn_mask):
    # attn_mask: Boolean, True = may attend
    attn_mask = (1 - attn_mask.to(q.dtype)) * float("-inf")  # bug
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + attn_mask  # bug
    return torch.softmax(scores, dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 4, 8).unbind(0)
    attn_mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))
    return attention(q, k, v, attn_mask)
