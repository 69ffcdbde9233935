"""The mask value is halved, max negative / 2, leaving room for the addition, as the pull request does.

Report: https://github.com/EleutherAI/gpt-neox/pull/25
Class: additive_sum_overflow
"""

import torch


def attend(q, k, v, mask):
    # mask: (batch, 1, i, j), True = may attend
    dots = torch.einsum("bhid,bhjd->bhij", q, k) * q.shape[-1] ** -0.5
    mask_value = -torch.finfo(dots.dtype).max / 2
    dots = dots + (~mask).to(dots.dtype) * mask_value
    attn = dots.softmax(dim=-1)
    return torch.einsum("bhij,bhjd->bhid", attn, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, v = torch.randn(2, 1, 1, 3, 4).half().unbind(0)
    k = (-16 * q[..., 2:, :]).expand(1, 1, 3, 4)  # the last query's scores far below zero
    mask = torch.tensor([True, True, False])[None, None, None, :].expand(1, 1, 3, 3).clone()
    mask[..., 2, :] = False  # a query with no allowed key
    return attend(q, k, v, mask)
