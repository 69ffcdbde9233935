"""A ViT notebook takes the attention softmax along the query axis (no mask involved).

https://github.com/nerminnuraydogan/vision-transformer/issues/1
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/nerminnuraydogan/vision-transformer/issues/1"

torch.manual_seed(0)
Q = torch.randn(1, 5, 8)  # [B, patches, D]
K = torch.randn(1, 5, 8)


def wrong() -> torch.Tensor:
    return torch.softmax(Q @ K.transpose(-2, -1) / 8**0.5, dim=1)


def right() -> torch.Tensor:
    return torch.softmax(Q @ K.transpose(-2, -1) / 8**0.5, dim=-1)
