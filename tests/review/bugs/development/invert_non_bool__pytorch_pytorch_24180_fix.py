"""The padding mask is made Boolean before it is inverted, so ``~`` gives True exactly on the real keys.

Report: https://github.com/pytorch/pytorch/issues/24180
Class: invert_non_bool
"""

import torch


def attend(q, k, v, is_pad):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # (B, L, S)
    keep = ~is_pad.bool()
    scores = torch.where(keep[:, None, :], scores, float("-inf"))
    return scores.softmax(-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 4)
    is_pad = torch.tensor([[0, 0, 1], [0, 1, 1]])
    return attend(q, k, v, is_pad)
