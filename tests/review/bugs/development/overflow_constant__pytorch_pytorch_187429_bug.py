"""torch.where(cond, -1e9, scores) silently casts the Python constant to float16, -inf, where full / fill_ would raise; a fully masked row is NaN.

Report: https://github.com/pytorch/pytorch/issues/187429
Class: overflow_constant
"""

import torch


def masked_softmax(scores, padding):
    # scores: (batch, q, k) float16; padding: (batch, 1, k), True = padding
    scores = torch.where(padding, -1e9, scores)  # bug
    return torch.softmax(scores, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 2, 3).half()
    padding = torch.tensor([[[False, False, True]], [[True, True, True]]])
    return masked_softmax(scores, padding)
