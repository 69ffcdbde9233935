"""MAB splits dim_V into heads along the batch axis but divides the scores by sqrt(dim_V), not by the head size.

Report: https://github.com/juho-lee/set_transformer/issues/18
Class: scale
"""

import math

import torch
from torch import nn


class MAB(nn.Module):
    def __init__(self, dim_Q, dim_K, dim_V, num_heads):
        super().__init__()
        self.dim_V = dim_V
        self.num_heads = num_heads
        self.fc_q = nn.Linear(dim_Q, dim_V)
        self.fc_k = nn.Linear(dim_K, dim_V)
        self.fc_v = nn.Linear(dim_K, dim_V)
        self.fc_o = nn.Linear(dim_V, dim_V)

    def forward(self, Q, K):
        Q = self.fc_q(Q)
        K, V = self.fc_k(K), self.fc_v(K)
        dim_split = self.dim_V // self.num_heads
        Q_ = torch.cat(Q.split(dim_split, 2), 0)  # (heads * B, N, dim_split)
        K_ = torch.cat(K.split(dim_split, 2), 0)
        V_ = torch.cat(V.split(dim_split, 2), 0)
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(self.dim_V), 2)  # bug
        O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        return O + torch.relu(self.fc_o(O))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mab = MAB(dim_Q=8, dim_K=8, dim_V=32, num_heads=4)
    x = torch.randn(2, 5, 8) * 3
    return mab(x, x)
