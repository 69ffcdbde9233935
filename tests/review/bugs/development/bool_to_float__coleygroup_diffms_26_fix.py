"""The additive mask new_attn_mask is what is added, so the 0-padded peaks get -inf.

Report: https://github.com/coleygroup/DiffMS/pull/26
Class: bool_to_float
"""

import math

import torch
import torch.nn.functional as F


def _scaled_dot_product_attention(q, k, v, attn_mask=None):
    # q, k, v: (B * heads, Nt, E); attn_mask: (B * heads, 1, Ns), True = padding
    B, Nt, E = q.shape
    q = q / math.sqrt(E)
    attn = torch.bmm(q, k.transpose(-2, -1))  # (B, Nt, Ns)
    if attn_mask is not None:
        new_attn_mask = torch.zeros_like(attn_mask, dtype=q.dtype)
        new_attn_mask.masked_fill_(attn_mask, float("-inf"))
        attn += new_attn_mask
    attn = F.softmax(attn, dim=-1)
    return torch.bmm(attn, v), attn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 4).unbind(0)
    num_peaks = torch.tensor([3, 2])
    attn_mask = ~(torch.arange(3)[None, :] < num_peaks[:, None])  # True = padded peak
    return _scaled_dot_product_attention(q, k, v, attn_mask[:, None, :])[1]
