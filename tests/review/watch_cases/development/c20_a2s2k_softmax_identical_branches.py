"""Two identical branch logits concatenated on dim 1 and softmaxed there: every weight is 0.5.

https://github.com/suvojit-0x55aa/A2S2K-ResNet/issues/4
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/suvojit-0x55aa/A2S2K-ResNet/issues/4"

torch.manual_seed(0)
Z = torch.randn(2, 1, 4)


def wrong() -> torch.Tensor:
    return torch.softmax(torch.cat([Z, Z], dim=1), dim=1)


def right() -> torch.Tensor:
    return torch.softmax(torch.cat([Z, Z + torch.randn(2, 1, 4)], dim=1), dim=1)
