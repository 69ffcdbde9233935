"""The mask is built in float32 with -1e15 and converted with .half() for float16 training: torch.Tensor([-1e15]).half() is -inf.

Report: https://github.com/NVIDIA/apex/issues/93
Class: overflow_constant
"""

import torch


def build_mask(lengths, max_len, dtype):
    positions = torch.arange(max_len)[None, :]  # (1, max_len)
    keep = positions < lengths[:, None]  # (batch, max_len)
    mask = torch.zeros(keep.shape)
    mask = mask.masked_fill(~keep, -1e15)  # bug
    return mask.to(dtype)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    energies = torch.randn(3, 4).half()  # (batch, max_len)
    mask = build_mask(torch.tensor([4, 2, 0]), 4, torch.float16)
    return torch.softmax(energies + mask, dim=-1)
