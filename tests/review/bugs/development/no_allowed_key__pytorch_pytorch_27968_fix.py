"""An empty batch item keeps one key in its padding mask, so every softmax row has an allowed key and the output is finite.

Report: https://github.com/pytorch/pytorch/issues/27968
Class: no_allowed_key
"""

import torch
from torch import nn


def seq_len_to_mask(seq_len, max_len):
    broad_cast_seq_len = torch.arange(max_len).expand(seq_len.size(0), -1)
    return broad_cast_seq_len.ge(seq_len.unsqueeze(1))  # True = padding


def run() -> torch.Tensor:
    torch.manual_seed(0)
    m = nn.MultiheadAttention(embed_dim=20, num_heads=5)
    i = torch.randn(4, 5, 20)
    q = k = v = i.transpose(0, 1)  # (L, N, E)
    seq_len = torch.tensor([5, 3, 1, 0])
    key_padding_mask = seq_len_to_mask(seq_len.clamp(min=1), max_len=5)  # an empty item keeps a key
    return m(q, k, v, key_padding_mask=key_padding_mask)[0]
