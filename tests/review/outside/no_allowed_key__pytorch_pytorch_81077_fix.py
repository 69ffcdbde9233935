"""The sequence lengths are forced to at least 1 before the key_padding_mask is built, so every sample keeps one key to attend to.

Report: https://github.com/pytorch/pytorch/issues/81077
Class: no_allowed_key
"""

import torch
from torch import nn


def make_key_padding_mask(lengths, max_sequence_length):
    positions = torch.arange(max_sequence_length)[None, :]
    return positions >= lengths[:, None]  # True = padded key


def run() -> torch.Tensor:
    torch.manual_seed(0)
    batch_size, max_sequence_length, n_heads, embed_dim = 3, 4, 2, 8
    mha = nn.MultiheadAttention(embed_dim, n_heads, batch_first=True)
    x = torch.randn(batch_size, max_sequence_length, embed_dim)
    lengths = torch.tensor([4, 0, 2])
    lengths = lengths.clamp(min=1)
    key_padding_mask = make_key_padding_mask(lengths, max_sequence_length)
    out, _ = mha(x, x, x, key_padding_mask=key_padding_mask)
    return out
