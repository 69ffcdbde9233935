"""Windows rearranged to '(b h1) (h2 w) c' (batch first) go into an nn.MultiheadAttention built
with batch_first=False.

https://github.com/aipixel/AEMatter/issues/3
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/aipixel/AEMatter/issues/3"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(4, 1)
X = torch.randn(6, 10, 4)  # [(b h1), (h2 w), c]


def wrong() -> torch.Tensor:
    return MHA(X, X, X, need_weights=False)[0]


def right() -> torch.Tensor:
    y = X.transpose(0, 1)
    return MHA(y, y, y, need_weights=False)[0].transpose(0, 1)
