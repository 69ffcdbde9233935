"""An additive padding mask of -1e4 while raw scores fall below -1e4 in training: padding is not
nullified.

https://github.com/huggingface/transformers/issues/14859
"""

from __future__ import annotations

import torch

SOURCE = "https://github.com/huggingface/transformers/issues/14859"

torch.manual_seed(0)
SCORES = torch.randn(2, 2, 4, 4) * 5 - 3e4  # [B, H, L, S]; real keys' scores drifted below -1e4
SCORES[..., 2:] += 3e4  # the padded keys' raw scores stay near 0
ATTENTION = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # 1 = real token


def wrong() -> torch.Tensor:
    extended = (1.0 - ATTENTION[:, None, None, :].float()) * -10000.0
    return (SCORES + extended).softmax(-1)


def right() -> torch.Tensor:
    extended = (1.0 - ATTENTION[:, None, None, :].float()) * torch.finfo(torch.float32).min
    return (SCORES + extended).softmax(-1)
