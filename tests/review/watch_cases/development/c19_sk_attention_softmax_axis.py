"""SKAttention's weights [k, bs, channel, 1, 1] take the softmax over the batch axis (dim 1)
instead of the k branches (dim 0).

https://github.com/xmu-xiaoma666/External-Attention-pytorch/issues/18
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/xmu-xiaoma666/External-Attention-pytorch/issues/18"

torch.manual_seed(0)
WEIGHTS = torch.randn(3, 2, 4, 1, 1)  # [k, bs, channel, 1, 1]


def wrong() -> torch.Tensor:
    return nn.Softmax(dim=1)(WEIGHTS)


def right() -> torch.Tensor:
    return nn.Softmax(dim=0)(WEIGHTS)
