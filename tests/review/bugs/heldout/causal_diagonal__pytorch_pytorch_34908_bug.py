"""The decoder gets the look-ahead mask flipped, as the report's torch 1.4 returned it (the transpose of the right one): tokens attend to the future.

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
    tgt_mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1).t()  # bug
    return model(src, tgt, tgt_mask=tgt_mask)
