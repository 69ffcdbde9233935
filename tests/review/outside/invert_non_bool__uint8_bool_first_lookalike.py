"""A padding mask that arrives from a dataloader as torch.uint8 (1 = token) is turned into a boolean with .bool() before it is inverted with ~ and given to nn.MultiheadAttention as key_padding_mask.

Correct: ~ is applied to the boolean tensor, so it is a logical not (True = padding); on the raw
uint8 tensor it would give 254 / 255.
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(2, 4, 8)
    token_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=torch.uint8)  # from the collate function
    key_padding_mask = ~token_mask.bool()
    out, _ = mha(x, x, x, key_padding_mask=key_padding_mask)
    return out
