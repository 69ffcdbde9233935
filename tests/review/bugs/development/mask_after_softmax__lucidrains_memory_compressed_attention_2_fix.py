"""The masks are filled in first and the softmax comes after them, as the fix (a41fd4d) orders it.

Report: https://github.com/lucidrains/memory-compressed-attention/issues/2
Class: mask_after_softmax
"""

import torch
import torch.nn.functional as F


def attend(q, k, v, input_mask):
    # q: (b, h, i, d); k, v: (b, h, j, d); input_mask: (b, j), True = real key
    dots = torch.einsum("bhid,bhjd->bhij", q, k) * q.shape[-1] ** -0.5
    mask_value = -torch.finfo(dots.dtype).max
    i, j = dots.shape[-2:]
    mask = torch.ones(i, j, dtype=torch.bool).triu_(j - i + 1)
    dots.masked_fill_(mask[None, None, ...], mask_value)
    dots.masked_fill_(~input_mask[:, None, None, :], mask_value)
    attn = dots.softmax(dim=-1)
    attn = F.dropout(attn, p=0.0)
    return torch.einsum("bhij,bhjd->bhid", attn, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    input_mask = torch.tensor([[True, True, True, False]])
    return attend(q, k, v, input_mask)
