"""softmax(2) over an axis of size 1 makes every attention entry 1.0.

https://github.com/phanideepgampa/stacked-capsule-networks/pull/5
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/phanideepgampa/stacked-capsule-networks/pull/5"

torch.manual_seed(0)
LOGITS = torch.randn(3, 4, 1)


def wrong() -> torch.Tensor:
    return torch.softmax(LOGITS, 2)


def right() -> torch.Tensor:
    return torch.softmax(LOGITS, 1)
