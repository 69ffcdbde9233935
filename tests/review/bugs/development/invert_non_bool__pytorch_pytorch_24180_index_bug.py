"""Masked scores are set by indexing with ``~`` of a uint8 valid mask: 254/255 index every position, so the whole row is set to the fill value and the softmax is NaN.

Report: https://github.com/pytorch/pytorch/issues/24180
Class: invert_non_bool
"""

import torch


def masked_softmax(x, valid_lens):
    shape = x.shape
    valid = (torch.arange(shape[-1])[None, :] < valid_lens[:, None]).byte()  # (B, S)
    valid = valid[:, None, :].expand(shape)
    x = x.clone()
    x[(~valid).bool()] = float("-inf")  # bug
    return x.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    return masked_softmax(torch.randn(2, 3, 4), torch.tensor([2, 3]))
