"""src_key_padding_mask passed as float 0/1 (1 = padding) to nn.TransformerEncoderLayer: added to
scores, it masks nothing.

https://github.com/pytorch/pytorch/issues/147209
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/147209"

torch.manual_seed(0)
LAYER = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
X = torch.randn(2, 4, 8)
PADDING = torch.tensor([[False, False, False, True], [False, False, True, True]])


def wrong() -> torch.Tensor:
    return LAYER(X, src_key_padding_mask=PADDING.float())


def right() -> torch.Tensor:
    return LAYER(X, src_key_padding_mask=PADDING)
