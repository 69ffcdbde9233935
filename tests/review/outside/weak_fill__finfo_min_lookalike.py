"""Padded keys filled with torch.finfo(attn.dtype).min before the softmax.

Correct: finfo.min is the most negative finite value of the scores' dtype, so the padded keys get
zero weight without producing inf; every row keeps at least one real key.
"""

import torch
from torch.nn import functional as F


def attention(q, k, v, attn_mask):
    attn = torch.matmul(q, k.transpose(2, 3)) / q.size(-1) ** 0.5
    attn = attn.masked_fill(attn_mask == 0, torch.finfo(attn.dtype).min)
    return torch.matmul(F.softmax(attn, dim=-1), v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
    src_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    return attention(q, k, v, src_mask[:, None, None, :])
