"""The additive mask is built from ``1 - keep`` on the uint8 keep-mask: -1e4 exactly on the padded keys.

Report: https://github.com/pytorch/pytorch/issues/24180
Class: invert_non_bool
"""

import torch


def attention_weights(scores, keep):
    bias = (1 - keep).float() * -1e4
    return (scores + bias[:, None, None, :]).softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 2, 3, 4)  # (B, H, L, S)
    keep = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.uint8)
    return attention_weights(scores, keep)
