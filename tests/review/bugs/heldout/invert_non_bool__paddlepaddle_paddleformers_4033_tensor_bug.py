"""A 0/1 integer padding tensor is inverted with ``~`` to make a key padding mask: the values are -1 and -2, both True as Booleans, so every key is hidden and the output is NaN.

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
    key_padding_mask = (~attention_mask).bool()  # bug
    return mha(x, x, x, key_padding_mask=key_padding_mask)[0]
