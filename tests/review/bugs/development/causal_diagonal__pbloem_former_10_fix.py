"""The future mask is built with ``triu_indices(t, t, offset=1)``: each position attends to itself and the past.

Report: https://github.com/pbloem/former/issues/10
Class: causal_diagonal
"""

import torch
import torch.nn.functional as F


def self_attention(x):
    _b, t, k = x.size()
    queries, keys, values = x, x, x
    queries = queries / (k ** (1 / 4))
    keys = keys / (k ** (1 / 4))
    dot = torch.bmm(queries, keys.transpose(1, 2))  # (b, t, t)
    indices = torch.triu_indices(t, t, offset=1)
    dot[:, indices[0], indices[1]] = float("-inf")
    dot = F.softmax(dot, dim=2)
    return torch.bmm(dot, values)  # (b, t, k)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    return self_attention(torch.randn(2, 4, 8))
