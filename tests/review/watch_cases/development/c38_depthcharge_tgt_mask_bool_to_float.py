"""A decoder's Boolean tgt_mask converted to float (0/1): tokens attend to the future during
training.

https://github.com/wfondrie/depthcharge/pull/38
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/wfondrie/depthcharge/pull/38"

torch.manual_seed(0)
LAYER = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
TGT = torch.randn(2, 5, 8)
MEMORY = torch.randn(2, 3, 8)
FUTURE = nn.Transformer.generate_square_subsequent_mask(5).isinf()  # True = masked


def wrong() -> torch.Tensor:
    return LAYER(TGT, MEMORY, tgt_mask=FUTURE.float())


def right() -> torch.Tensor:
    return LAYER(TGT, MEMORY, tgt_mask=FUTURE)
