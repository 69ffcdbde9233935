"""Masked scores are set by indexing with ``~`` of the valid mask made Boolean first: exactly the positions past each valid length.

Report: https://github.com/pytorch/pytorch/issues/24180
Class: invert_non_bool
"""

import torch


def masked_softmax(x, valid_lens):
    shape = x.shape
    valid = (torch.arange(shape[-1])[None, :] < valid_lens[:, None]).byte()  # (B, S)
    valid = valid[:, None, :].expand(shape)
    x = x.clone()
    x[~valid.bool()] = float("-inf")
    return x.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    return masked_softmax(torch.randn(2, 3, 4), torch.tensor([2, 3]))
