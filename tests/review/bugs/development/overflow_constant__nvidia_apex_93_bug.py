"""The padding is masked by adding -1e20 times the padding indicator to float16 scores, which overflows to -inf (x - 1e20 in the thread).

Report: https://github.com/NVIDIA/apex/issues/93
Class: overflow_constant
"""

import torch


def masked_attention(scores, padding):
    # scores: (batch, q, k) in float16; padding: (batch, k), 1.0 = padding
    penalty = -1e20  # bug
    scores = scores + padding[:, None, :] * penalty  # bug
    return torch.softmax(scores, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 2, 3).half()
    padding = torch.tensor([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]).half()
    return masked_attention(scores, padding)
