"""A ``[B, L]`` mask is rearranged ``'b i -> b 1 i 1'``: it is laid along the query axis, so padded queries lose every key and padded keys stay visible.

Report: https://github.com/lucidrains/x-transformers/issues/172
Class: padding_axis
"""

import torch


def attend(q, k, v, mask):
    dots = torch.einsum("bhid,bhjd->bhij", q, k) * q.shape[-1] ** -0.5
    max_neg_value = -torch.finfo(dots.dtype).max
    mask = mask[:, None, :, None]  # bug
    dots = dots.masked_fill(~mask, max_neg_value)
    attn = dots.softmax(dim=-1)
    return torch.einsum("bhij,bhjd->bhid", attn, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 4, 8)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    return attend(q, k, v, mask)
