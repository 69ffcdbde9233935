"""The square subsequent mask has -inf above the diagonal: each position sees itself and the past.

Report: https://github.com/pytorch/pytorch/issues/28272
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
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    src = torch.randn(4, 2, 8)  # (S, N, E)
    return layer(src, src_mask=generate_square_subsequent_mask(4))
