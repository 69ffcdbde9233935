"""DotAttention's softmax(dim=2) is the key axis for 3-D scores but the query axis for 4-D [B, H,
L, S].

https://github.com/FudanNLP/fastNLP/issues/254
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/FudanNLP/fastNLP/issues/254"

torch.manual_seed(0)
SCORES = torch.randn(2, 2, 4, 4)  # [B, H, L, S]
KEEP = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=torch.bool)[:, None, None, :]


def wrong() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(~KEEP, -1e9), dim=2)


def right() -> torch.Tensor:
    return F.softmax(SCORES.masked_fill(~KEEP, -1e9), dim=-1)
