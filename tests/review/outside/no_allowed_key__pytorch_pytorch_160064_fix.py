"""The same call with need_weights=False, the path the report finds correct: the fused attention gives the fully masked head zero weights instead of NaN.

Report: https://github.com/pytorch/pytorch/issues/160064
Class: no_allowed_key
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(1, 5, 3)
    mask = torch.tensor([False, False, True]).view(-1, 1, 1).expand(-1, 5, 5)  # head 2 fully masked
    att = nn.MultiheadAttention(3, 3, batch_first=True)
    y, _ = att(x, x, x, attn_mask=mask, average_attn_weights=False, need_weights=False)
    return y
