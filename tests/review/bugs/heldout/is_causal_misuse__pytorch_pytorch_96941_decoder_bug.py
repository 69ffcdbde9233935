"""The decoder layer gets a target padding mask with ``tgt_is_causal=True``: the hint replaces the mask, so the padded target is attended.

Report: https://github.com/pytorch/pytorch/issues/96941
Class: is_causal_misuse
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    tgt = torch.randn(4, 2, 8)  # (T, N, E)
    memory = torch.randn(3, 2, 8)  # (S, N, E)
    tgt_mask = torch.zeros(4, 4)
    tgt_mask[:, 3] = float("-inf")  # the last target position is padding
    return layer(tgt, memory, tgt_mask=tgt_mask, tgt_is_causal=True)  # bug
