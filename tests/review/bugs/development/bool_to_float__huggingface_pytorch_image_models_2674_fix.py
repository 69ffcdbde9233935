"""A Boolean mask is first turned into a float mask with -inf where it is False, as the pull request proposes for maybe_add_mask.

Report: https://github.com/huggingface/pytorch-image-models/pull/2674
Class: bool_to_float
"""

import torch


def maybe_add_mask(scores, attn_mask=None):
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros_like(scores).masked_fill_(attn_mask.logical_not(), float("-inf"))
    return scores if attn_mask is None else scores + attn_mask


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.rand(3, 4)
    bool_mask = torch.ones(3, 4, dtype=torch.bool).tril(diagonal=0)  # True = may attend
    return torch.softmax(maybe_add_mask(scores, bool_mask), dim=-1)
