"""The source padding mask is built with ``.unsqueeze(1).unsqueeze(3)``, shape ``(batch, 1, seq_len, 1)``: it broadcasts along the keys, so padded queries are hidden and padded keys stay visible.

Report: https://github.com/hyunwoongko/transformer/pull/40
Class: padding_axis
"""

import math

import torch


def make_src_mask(src, src_pad_idx):
    return (src != src_pad_idx).unsqueeze(1).unsqueeze(3)  # bug


def scale_dot_product_attention(q, k, v, mask=None):
    d_tensor = k.size(-1)
    score = (q @ k.transpose(2, 3)) / math.sqrt(d_tensor)  # (batch, head, len_q, len_k)
    if mask is not None:
        score = score.masked_fill(mask == 0, -10000)
    return score.softmax(dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    src = torch.tensor([[5, 7, 3, 0, 0], [4, 2, 6, 8, 9]])  # 0 = padding
    q, k, v = torch.randn(3, 2, 2, 5, 4)
    return scale_dot_product_attention(q, k, v, mask=make_src_mask(src, 0))
