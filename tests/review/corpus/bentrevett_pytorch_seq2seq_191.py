"""``masked_fill(mask == 0, -1e10)``: raises under float16.

Written from bentrevett/pytorch-seq2seq#191 (the Transformer notebook's energy mask), run as the
report ran it, under float16 autocast.
"""

import torch


def attention(query, key, value, mask, scale):
    energy = torch.matmul(query, key.permute(0, 1, 3, 2)) / scale
    if mask is not None:
        energy = energy.masked_fill(mask == 0, -1e10)  # expect: AM202
    return torch.matmul(torch.softmax(energy, dim=-1), value)


def train_step(query, key, value, mask, scale):
    with torch.autocast("cuda", dtype=torch.float16):  # the report's mixed-precision run
        return attention(query, key, value, mask, scale)
