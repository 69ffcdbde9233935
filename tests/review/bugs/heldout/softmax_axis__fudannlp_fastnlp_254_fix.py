"""The softmax runs over dim=-1, the keys, for 3-D and 4-D scores alike, as the report asks.

Report: https://github.com/FudanNLP/fastNLP/issues/254
Class: softmax_axis
"""

import math

import torch
from torch import nn


class DotAttention(nn.Module):
    def __init__(self, key_size, value_size, dropout=0.0):
        super().__init__()
        self.key_size = key_size
        self.value_size = value_size
        self.scale = math.sqrt(key_size)
        self.drop = nn.Dropout(dropout)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, Q, K, V, mask_out=None):
        output = torch.matmul(Q, K.transpose(-1, -2)) / self.scale  # (batch, heads, len, len)
        if mask_out is not None:
            output.masked_fill_(mask_out, -1e9)
        output = self.softmax(output)
        output = self.drop(output)
        return torch.matmul(output, V)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = DotAttention(key_size=8, value_size=8)
    q, k, v = torch.randn(3, 2, 2, 5, 8).unbind(0)
    return attention(q, k, v)
