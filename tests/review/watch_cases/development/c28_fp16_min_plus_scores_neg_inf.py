"""finfo(float16).min plus a score below -16 is -inf: a [pad, token] causal+padding row becomes all
-inf and the softmax NaN.

https://github.com/huggingface/transformers/pull/17306
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SOURCE = "https://github.com/huggingface/transformers/pull/17306"

LOW = torch.finfo(torch.float16).min
SCORES = torch.tensor([[-20.0, -30.0], [1.0, 2.0]], dtype=torch.float16)  # [L, S]
MASK = torch.tensor([[LOW, LOW], [LOW, 0.0]], dtype=torch.float16)  # query 0 is the pad


def wrong() -> torch.Tensor:
    return F.softmax(SCORES + MASK, dim=-1, dtype=torch.float32)


def right() -> torch.Tensor:
    return F.softmax(SCORES.float() + MASK.float(), dim=-1)
