"""Attention scores masked with masked_fill(mask, 1e-9): the masked keys keep their weight.

https://github.com/awslabs/gluonts/pull/1401
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/awslabs/gluonts/pull/1401"

torch.manual_seed(0)
SCORES = torch.randn(2, 4, 4)
KEEP = torch.ones(4, 4, dtype=torch.bool).tril()


def wrong() -> torch.Tensor:
    return SCORES.masked_fill(~KEEP, 1e-9).softmax(dim=-1)


def right() -> torch.Tensor:
    return SCORES.masked_fill(~KEEP, -1e9).softmax(dim=-1)
