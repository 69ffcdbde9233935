"""The constant is the dtype's lowest finite value, so torch.where writes a finite number in float16.

Report: https://github.com/pytorch/pytorch/issues/187429
Class: overflow_constant
"""

import torch


def masked_softmax(scores, padding):
    # scores: (batch, q, k) float16; padding: (batch, 1, k), True = padding
    scores = torch.where(padding, torch.finfo(scores.dtype).min, scores)
    return torch.softmax(scores, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 2, 3).half()
    padding = torch.tensor([[[False, False, True]], [[True, True, True]]])
    return masked_softmax(scores, padding)
