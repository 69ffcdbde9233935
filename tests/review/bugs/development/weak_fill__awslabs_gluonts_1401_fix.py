"""The masked scores are filled with -1e9, as the pull request does, so their weight is zero.

Report: https://github.com/awslabs/gluonts/pull/1401
Class: weak_fill
"""

import torch
import torch.nn.functional as F


def scaled_dot_product_attention(q, k, v, mask=None):
    # q, k, v: (batch, len, d); mask: (batch, len, len), True = masked
    score = torch.bmm(q, k.transpose(1, 2)) / q.shape[-1] ** 0.5
    if mask is not None:
        score = score.masked_fill(mask, -1e9)
    weights = F.softmax(score, dim=-1)
    return torch.bmm(weights, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 4, 8).unbind(0)
    mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)[None]  # the future
    return scaled_dot_product_attention(q, k, v, mask)
