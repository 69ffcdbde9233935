"""nn.MultiheadAttention is given a boolean attn_mask that masks every key of one head and is asked for the weights (need_weights=True); that path takes a plain softmax over the all -inf rows and the whole output is NaN.

Report: https://github.com/pytorch/pytorch/issues/160064
Class: no_allowed_key
Decidable: values
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(1, 5, 3)
    mask = torch.tensor([False, False, True]).view(-1, 1, 1).expand(-1, 5, 5)  # head 2 fully masked  # bug
    att = nn.MultiheadAttention(3, 3, batch_first=True)
    y, weights = att(x, x, x, attn_mask=mask, average_attn_weights=False, need_weights=True)  # bug
    return y
