"""masked_softmax sets the attention weights of a sequence whose valid length is 0 to zero after the softmax, as the pull request proposes.

Report: https://github.com/d2l-ai/d2l-en/pull/2423
Class: no_allowed_key
"""

import math

import torch
from torch import nn


def masked_softmax(X, valid_lens):
    """Perform softmax operation by masking elements on the last axis."""

    def _sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X

    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = _sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        weights = nn.functional.softmax(X.reshape(shape), dim=-1)
        # a sequence with valid length 0 attends to nothing
        return weights * (valid_lens.reshape(shape[:-1]) > 0).unsqueeze(-1).to(weights.dtype)


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries = torch.randn(2, 1, 4)
    keys = torch.randn(2, 5, 4)
    values = torch.randn(2, 5, 3)
    valid_lens = torch.tensor([3, 0])  # the second sequence is empty
    attention = DotProductAttention(dropout=0.0)
    attention.eval()
    return attention(queries, keys, values, valid_lens)
