"""The tutorial's masks end to end: the source mask built from ``!= pad``, the fill -1e10.

Written from bentrevett/pytorch-seq2seq#191 (``energy.masked_fill(mask == 0, -1e10)`` raising
under float16), run as the report ran it, under float16 autocast.
"""

import torch


def make_src_mask(src, src_pad_idx):
    return (src != src_pad_idx).unsqueeze(1).unsqueeze(2)  # True = real token


def attention(query, key, value, src, src_pad_idx, scale):
    mask = make_src_mask(src, src_pad_idx)
    energy = torch.matmul(query, key.permute(0, 1, 3, 2)) / scale
    energy = energy.masked_fill(mask == 0, -1e10)  # expect: AM202
    return torch.matmul(torch.softmax(energy, dim=-1), value)


def train_step(query, key, value, src, src_pad_idx, scale):
    with torch.autocast("cuda", dtype=torch.float16):  # the report's mixed-precision run
        return attention(query, key, value, src, src_pad_idx, scale)
