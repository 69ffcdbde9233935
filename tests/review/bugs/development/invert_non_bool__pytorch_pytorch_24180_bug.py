"""A uint8 padding mask is inverted with ``~``: ``~tensor([1, 0]).byte()`` is ``[254, 255]``, both non-zero, so ``torch.where`` keeps every key, padding included.

Report: https://github.com/pytorch/pytorch/issues/24180
Class: invert_non_bool
"""

import torch


def attend(q, k, v, is_pad):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # (B, L, S)
    keep = ~is_pad.byte()  # bug
    scores = torch.where(keep[:, None, :], scores, float("-inf"))
    return scores.softmax(-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 4)
    is_pad = torch.tensor([[0, 0, 1], [0, 1, 1]])
    return attend(q, k, v, is_pad)
