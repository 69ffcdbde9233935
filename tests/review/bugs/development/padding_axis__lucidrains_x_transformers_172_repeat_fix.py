"""A ``[B, L]`` mask is repeated ``'b j -> b h i j'``: the padding runs along the key axis and is copied over every query.

Report: https://github.com/lucidrains/x-transformers/issues/172
Class: padding_axis
"""

import torch


def attend(q, k, v, mask, heads):
    n = mask.shape[1]
    mask = mask[:, None, None, :].expand(-1, heads, n, -1)
    dots = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5  # (b, h, i, j)
    dots = dots.masked_fill(~mask, -torch.finfo(dots.dtype).max)
    return dots.softmax(dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 4, 8)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    return attend(q, k, v, mask, heads=2)
