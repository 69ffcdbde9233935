"""Masked scores set to -1e5 while real scores go below -1e5: the model attends outside the mask.

https://github.com/TransformerLensOrg/TransformerLens/pull/319
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/TransformerLensOrg/TransformerLens/pull/319"

torch.manual_seed(0)
SCORES = torch.randn(1, 2, 4, 4) * 10 - 2e5  # real scores below -1e5
FUTURE = ~torch.ones(4, 4, dtype=torch.bool).tril()


def wrong() -> torch.Tensor:
    return torch.where(FUTURE, torch.tensor(-1e5), SCORES).softmax(-1)


def right() -> torch.Tensor:
    return torch.where(FUTURE, torch.tensor(float("-inf")), SCORES).softmax(-1)
