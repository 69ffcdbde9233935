"""MultiHeadAttention splits the model width M into H heads but scales the per-head q @ k scores by 1/sqrt(M) instead of 1/sqrt(M / H).

Report: https://github.com/chelsea0x3b/dfdx/issues/171
Class: scale_feature
Decidable: code
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, M: int, H: int, K: int, V: int):
        super().__init__()
        self.M, self.H, self.K, self.V = M, H, K, V
        self.w_q = nn.Linear(M, K)
        self.w_k = nn.Linear(M, K)
        self.w_v = nn.Linear(M, V)
        self.w_o = nn.Linear(V, M)

    def forward(self, q, k, v):
        B, S1, _ = q.shape
        S2 = k.shape[1]
        M, H, K, V = self.M, self.H, self.K, self.V
        v = self.w_v(v).reshape(B, S2, H, V // H).permute(0, 2, 1, 3)
        k = self.w_k(k).reshape(B, S2, H, K // H).permute(0, 2, 3, 1)
        q = self.w_q(q).reshape(B, S1, H, K // H).permute(0, 2, 1, 3)

        # Get weights
        scalar = 1.0 / math.sqrt(M)  # bug
        weights = torch.matmul(q, k) * scalar  # bug
        weights = weights.softmax(dim=3)

        # Get new tokens
        tokens = torch.matmul(weights, v)
        tokens = tokens.permute(0, 2, 1, 3).reshape(B, S1, V)
        return self.w_o(tokens)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MultiHeadAttention(M=16, H=4, K=16, V=16).eval()
    q = torch.randn(2, 3, 16) * 2.0
    kv = torch.randn(2, 5, 16) * 2.0
    with torch.no_grad():
        return mha(q, kv, kv)
