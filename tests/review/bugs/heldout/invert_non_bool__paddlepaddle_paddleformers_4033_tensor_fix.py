"""The 0/1 integer padding tensor is negated with ``1 - attention_mask`` before it becomes the key padding mask: True exactly on padding.

Report: https://github.com/PaddlePaddle/PaddleFormers/pull/4033
Class: invert_non_bool
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(2, 4, 8)
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # 1 = real token
    key_padding_mask = (1 - attention_mask).bool()
    return mha(x, x, x, key_padding_mask=key_padding_mask)[0]
