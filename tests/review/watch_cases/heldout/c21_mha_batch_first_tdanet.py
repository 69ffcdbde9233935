"""[B, T, C] fed to nn.MultiheadAttention(batch_first=False): the weights act on the batch axis.

https://github.com/JusperLee/TDANet/issues/3
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/JusperLee/TDANet/issues/3"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2)  # batch_first=False
X = torch.randn(4, 6, 8)  # [B, T, C]


def wrong() -> torch.Tensor:
    return MHA(X, X, X)[0]


def right() -> torch.Tensor:
    y = X.transpose(0, 1)  # [T, B, C]
    return MHA(y, y, y)[0].transpose(0, 1)
