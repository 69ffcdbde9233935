"""nn.TransformerEncoder returns NaN for a batch item whose src_key_padding_mask hides every
position.

https://github.com/pytorch/pytorch/issues/64525
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/64525"

torch.manual_seed(0)
LAYER = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
ENCODER = nn.TransformerEncoder(LAYER, 2, enable_nested_tensor=False)
X = torch.randn(3, 2, 8)  # [T, B, E]


def wrong() -> torch.Tensor:
    padding = torch.tensor([[False, False, True], [True, True, True]])
    return ENCODER(X, src_key_padding_mask=padding)


def right() -> torch.Tensor:
    padding = torch.tensor([[False, False, True], [False, False, False]])
    return ENCODER(X, src_key_padding_mask=padding)
