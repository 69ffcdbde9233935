"""The mask takes the lowest finite value of the dtype it is converted to, so it stays finite in float16.

Report: https://github.com/NVIDIA/apex/issues/93
Class: overflow_constant
"""

import torch


def build_mask(lengths, max_len, dtype):
    positions = torch.arange(max_len)[None, :]  # (1, max_len)
    keep = positions < lengths[:, None]  # (batch, max_len)
    mask = torch.zeros(keep.shape)
    mask = mask.masked_fill(~keep, torch.finfo(dtype).min)
    return mask.to(dtype)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    energies = torch.randn(3, 4).half()  # (batch, max_len)
    mask = build_mask(torch.tensor([4, 2, 0]), 4, torch.float16)
    return torch.softmax(energies + mask, dim=-1)
