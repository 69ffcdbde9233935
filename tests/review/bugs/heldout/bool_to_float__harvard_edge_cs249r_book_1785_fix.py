"""The causal mask is the binary tril of ones that _apply_mask's convention requires, as the pull request does.

Report: https://github.com/harvard-edge/cs249r_book/pull/1785
Class: bool_to_float
"""

import torch

MASK_VALUE = -1e9


def _apply_mask(scores, mask):
    # mask: 1 = allow, 0 = block
    return scores + (1 - mask) * MASK_VALUE


def _create_causal_mask(seq_len):
    return torch.tril(torch.ones((seq_len, seq_len)))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(1, 4, 4)
    mask = _create_causal_mask(4)
    return torch.softmax(_apply_mask(scores, mask), dim=-1)
