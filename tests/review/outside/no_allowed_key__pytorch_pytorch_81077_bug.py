"""A padded batch whose random lengths include 0 gives nn.MultiheadAttention a key_padding_mask row that is True at every key, so that sample's softmax is 0/0 and its output is NaN.

Report: https://github.com/pytorch/pytorch/issues/81077
Class: no_allowed_key
Decidable: values

The report's script drew the sequence lengths at random (multiples of 32, zero included); the case
keeps that shape with tiny sizes and a fixed draw that contains a zero length.
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
    lengths = torch.tensor([4, 0, 2])  # the random draw: one sequence of length 0  # bug
    key_padding_mask = make_key_padding_mask(lengths, max_sequence_length)
    out, _ = mha(x, x, x, key_padding_mask=key_padding_mask)  # bug
    return out
