"""maybe_add_mask adds attn_mask to the scores, which only suits a float mask: a Boolean tril mask adds 1 where attending is allowed.

Report: https://github.com/huggingface/pytorch-image-models/pull/2674
Class: bool_to_float
"""

import torch


def maybe_add_mask(scores, attn_mask=None):
    return scores if attn_mask is None else scores + attn_mask  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.rand(3, 4)
    bool_mask = torch.ones(3, 4, dtype=torch.bool).tril(diagonal=0)  # True = may attend
    return torch.softmax(maybe_add_mask(scores, bool_mask), dim=-1)
