"""The decoder gets the look-ahead mask the report expected: -inf above the diagonal.

Report: https://github.com/pytorch/pytorch/issues/34908
Class: causal_diagonal
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = nn.Transformer(
        d_model=8,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=16,
        dropout=0.0,
    )
    src = torch.randn(3, 2, 8)  # (S, N, E)
    tgt = torch.randn(4, 2, 8)  # (T, N, E)
    tgt_mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)
    return model(src, tgt, tgt_mask=tgt_mask)
