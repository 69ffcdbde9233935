"""A square subsequent mask built as torch.log(torch.tril(torch.ones(sz, sz))) and passed as the float tgt_mask of nn.TransformerDecoderLayer.

Correct: log(1) = 0 on and below the diagonal and log(0) = -inf above it, the same additive mask
as generate_square_subsequent_mask; each position keeps itself and the earlier positions.
"""

import torch
from torch import nn


def generate_square_subsequent_mask(sz: int) -> torch.Tensor:
    return torch.log(torch.tril(torch.ones(sz, sz)))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0).eval()
    tgt = torch.randn(4, 2, 8)  # [T, B, E]
    memory = torch.randn(5, 2, 8)  # [S, B, E]
    tgt_mask = generate_square_subsequent_mask(tgt.size(0))
    with torch.no_grad():
        return layer(tgt, memory, tgt_mask=tgt_mask)
