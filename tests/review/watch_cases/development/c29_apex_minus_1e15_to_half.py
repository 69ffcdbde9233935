"""A mask of -1e15 built in float32 and cast to half is -inf: a sequence masked whole gives NaN
under AMP.

https://github.com/NVIDIA/apex/issues/93
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/NVIDIA/apex/issues/93"

torch.manual_seed(0)
SCORES = torch.randn(2, 3, 3).half()  # [B, L, S]
PAD = torch.tensor([[False, False, True], [True, True, True]])[:, None, :]


def wrong() -> torch.Tensor:
    mask = torch.zeros(2, 1, 3).masked_fill(PAD, -1e15).half()  # -1e15 -> -inf in half
    return torch.softmax((SCORES + mask).float(), dim=-1)


def right() -> torch.Tensor:
    pad = PAD.clone()
    pad[1, 0, 0] = False
    mask = torch.zeros(2, 1, 3).masked_fill(pad, -1e15).half()
    return torch.softmax((SCORES + mask).float(), dim=-1)
