"""nn.MultiheadAttention with an attn_mask whose first row is masked whole: NaN with
need_weights=True, zeros without.

https://github.com/pytorch/pytorch/issues/152028
"""

from __future__ import annotations

import torch
from torch import nn

SOURCE = "https://github.com/pytorch/pytorch/issues/152028"

torch.manual_seed(0)
MHA = nn.MultiheadAttention(8, 2, batch_first=True, bias=False).eval()
QUERY = torch.randn(2, 3, 8)
KEY = torch.randn(2, 4, 8)


def wrong() -> torch.Tensor:
    mask = torch.zeros(3, 4)
    mask[0] = float("-inf")
    return MHA(QUERY, KEY, KEY, attn_mask=mask, need_weights=True)[0]


def right() -> torch.Tensor:
    mask = torch.zeros(3, 4)
    mask[0, 1:] = float("-inf")
    return MHA(QUERY, KEY, KEY, attn_mask=mask, need_weights=True)[0]
