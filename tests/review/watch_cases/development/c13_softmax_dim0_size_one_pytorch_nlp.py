"""nn.Attention reshapes scores to [batch*output_len, query_len] and softmaxes over dim 0: with
batch 1 every weight is 1.

https://github.com/PetrochukM/PyTorch-NLP/issues/2
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/PetrochukM/PyTorch-NLP/issues/2"

torch.manual_seed(0)
QUERY = torch.randn(1, 1, 3)
CONTEXT = torch.randn(1, 2, 3)


def wrong() -> torch.Tensor:
    scores = QUERY @ CONTEXT.transpose(1, 2)  # [1, 1, 2]
    return nn.Softmax(dim=0)(scores.view(1, 2)).view(1, 1, 2)


def right() -> torch.Tensor:
    scores = QUERY @ CONTEXT.transpose(1, 2)
    return nn.Softmax(dim=-1)(scores.view(1, 2)).view(1, 1, 2)
