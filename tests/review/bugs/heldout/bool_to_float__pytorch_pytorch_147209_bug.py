"""The padding mask is given to nn.TransformerEncoderLayer as pad.float(); a float src_key_padding_mask is added, so padding gets +1, not -inf.

Report: https://github.com/pytorch/pytorch/issues/147209
Class: bool_to_float
"""

import torch
from torch import nn


def encode(layer, x, pad):
    # pad: (batch, seq), True = padding
    return layer(x, src_key_padding_mask=pad.float())  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True
    )
    x = torch.randn(2, 4, 8)
    pad = torch.tensor([[False, False, True, True], [False, False, False, True]])
    return encode(layer, x, pad)[:, :2].detach()
