"""The tutorial's mask, ``triu(..., diagonal=1)``: -inf above the diagonal, zeros on it, as its docstring says.

Report: https://github.com/pytorch/tutorials/issues/2250
Class: causal_diagonal
"""

import torch
from torch import Tensor, nn


def generate_square_subsequent_mask(sz: int) -> Tensor:
    """Generates an upper-triangular matrix of -inf, with zeros on diag."""
    return torch.triu(torch.ones(sz, sz) * float("-inf"), diagonal=1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    encoder_layers = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    transformer_encoder = nn.TransformerEncoder(encoder_layers, 1, enable_nested_tensor=False)
    src = torch.randn(5, 2, 8)  # (S, N, E)
    src_mask = generate_square_subsequent_mask(5)
    return transformer_encoder(src, src_mask)
