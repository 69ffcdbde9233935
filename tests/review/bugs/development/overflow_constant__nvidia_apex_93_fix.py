"""The additive penalty is the float16 dtype's lowest finite value, so a fully padded row stays finite.

Report: https://github.com/NVIDIA/apex/issues/93
Class: overflow_constant
"""

import torch


def masked_attention(scores, padding):
    # scores: (batch, q, k) in float16; padding: (batch, k), 1.0 = padding
    penalty = torch.finfo(scores.dtype).min
    scores = scores + padding[:, None, :] * penalty
    return torch.softmax(scores, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 2, 3).half()
    padding = torch.tensor([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]).half()
    return masked_attention(scores, padding)
