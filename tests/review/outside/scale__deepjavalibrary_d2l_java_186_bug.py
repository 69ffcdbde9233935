"""DotProductAttention reads the query width d but divides the batched dot products by Math.sqrt(2), a constant, instead of sqrt(d) before the masked softmax.

Report: https://github.com/deepjavalibrary/d2l-java/pull/186
Class: scale
Decidable: code
"""

import math

import torch
from torch import nn


def sequence_mask(X, valid_len, value=0):
    """Mask irrelevant entries in sequences."""
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    """Perform softmax operation by masking elements on the last axis."""
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    """Scaled dot product attention."""

    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    # Shape of `queries`: (`batchSize`, no. of queries, `d`)
    # Shape of `keys`: (`batchSize`, no. of key-value pairs, `d`)
    # Shape of `values`: (`batchSize`, no. of key-value pairs, value dimension)
    # Shape of `valid_lens`: (`batchSize`,) or (`batchSize`, no. of queries)
    def forward(self, queries, keys, values, valid_lens):
        d = queries.shape[-1]
        # Swap the last two dimensions of `keys` and perform batchDot
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(2)  # bug
        self.attention_weights = masked_softmax(scores, valid_lens)  # bug
        return torch.bmm(self.dropout(self.attention_weights), values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries = torch.randn(2, 1, 16)
    keys = torch.randn(2, 6, 16)
    values = torch.arange(24, dtype=torch.float32).reshape(1, 6, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor([2, 6])
    attention = DotProductAttention(dropout=0.5).eval()
    with torch.no_grad():
        return attention(queries, keys, values, valid_lens)
