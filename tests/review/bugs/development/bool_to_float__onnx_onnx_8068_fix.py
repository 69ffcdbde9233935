"""The bias is torch.where(attn_mask, 0, -inf), as the pull request's Where form, so allowed cells get 0.

Report: https://github.com/onnx/onnx/pull/8068
Class: bool_to_float
"""

import torch


def attention(q, k, v, attn_mask):
    # attn_mask: Boolean, True = may attend
    attn_mask = torch.where(attn_mask, 0.0, float("-inf"))
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + attn_mask
    return torch.softmax(scores, dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 4, 8).unbind(0)
    attn_mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))
    return attention(q, k, v, attn_mask)
