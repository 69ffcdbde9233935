"""A padding mask built with == on the padding id (a torch.bool tensor) and inverted with ~ to get the valid positions for masked_fill.

Correct: `~` on a torch.bool tensor is a logical not (True <-> False), not an integer bitwise not;
the mask here is built by a comparison, so its dtype is bool and the inversion is exact.
"""

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.tensor([[5, 7, 2, 0], [3, 0, 0, 0]])
    padding_mask = x == 0  # bool, True = padding
    valid = ~padding_mask
    q, k, v = torch.randn(3, 2, 4, 8).unbind(0)
    scores = q @ k.transpose(-1, -2) / 8 ** 0.5
    scores = scores.masked_fill(~valid[:, None, :], float("-inf"))
    return scores.softmax(dim=-1) @ v
