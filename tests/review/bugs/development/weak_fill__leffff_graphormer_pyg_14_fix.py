"""Cross-graph cells get -1e6 added before the softmax (0 within a graph), as the issue proposes.

Report: https://github.com/leffff/graphormer-pyg/issues/14
Class: weak_fill
"""

import torch
from torch import nn


class GraphormerAttentionHead(nn.Module):
    def __init__(self, dim_in, dim_q, dim_k):
        super().__init__()
        self.q = nn.Linear(dim_in, dim_q)
        self.k = nn.Linear(dim_in, dim_k)
        self.v = nn.Linear(dim_in, dim_k)

    def forward(self, query, key, value, b, ptr):
        batch_mask = torch.full((query.shape[0], query.shape[0]), -1e6)
        for i in range(len(ptr) - 1):
            batch_mask[ptr[i] : ptr[i + 1], ptr[i] : ptr[i + 1]] = 0
        query = self.q(query)
        key = self.k(key)
        value = self.v(value)
        a = query.mm(key.transpose(0, 1)) / query.size(-1) ** 0.5  # (nodes, nodes)
        a = (a + b) + batch_mask
        softmax = torch.softmax(a, dim=-1)
        return softmax.mm(value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    head = GraphormerAttentionHead(dim_in=4, dim_q=4, dim_k=4)
    x = torch.randn(5, 4)
    b = torch.randn(5, 5)  # spatial encoding
    return head(x, x, x, b, ptr=[0, 2, 5])  # two graphs: nodes 0-1 and 2-4
