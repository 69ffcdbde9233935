"""The look-ahead matrix is cast to float first, then filled: -inf above the diagonal, 0 on and below it.

Report: https://github.com/pytorch/pytorch/issues/29546
Class: causal_diagonal
"""

import torch
from torch import nn


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)
    return mask


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2)
    x = torch.randn(4, 2, 8)  # (L, N, E)
    return mha(x, x, x, attn_mask=generate_square_subsequent_mask(4))[1]
