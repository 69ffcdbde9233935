"""The maintainers' fix: the (B, N, 1) token weights are normalised over the tokens, dim=1, with ``torch.nn.functional.normalize``.

Report: https://github.com/Amshaker/SwiftFormer/issues/2
Class: softmax_axis
"""

import torch
from torch import nn


class EfficientAdditiveAttnetion(nn.Module):
    def __init__(self, in_dims=512, token_dim=256, num_heads=2):
        super().__init__()
        self.to_query = nn.Linear(in_dims, token_dim * num_heads)
        self.to_key = nn.Linear(in_dims, token_dim * num_heads)
        self.w_g = nn.Parameter(torch.randn(token_dim * num_heads, 1))
        self.scale_factor = token_dim**-0.5
        self.Proj = nn.Linear(token_dim * num_heads, token_dim * num_heads)
        self.final = nn.Linear(token_dim * num_heads, token_dim)

    def forward(self, x):
        query = self.to_query(x)
        key = self.to_key(x)
        query = torch.nn.functional.normalize(query, dim=-1)
        key = torch.nn.functional.normalize(key, dim=-1)
        query_weight = query @ self.w_g
        A = query_weight * self.scale_factor  # BxNx1
        A = torch.nn.functional.normalize(A, dim=1)  # BxNx1
        G = torch.sum(A * query, dim=1)
        G = G[:, None, :].expand(-1, key.shape[1], -1)  # b d -> b repeat d
        out = self.Proj(G * key) + query
        return self.final(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = EfficientAdditiveAttnetion(in_dims=8, token_dim=4, num_heads=2)
    return attention(torch.randn(2, 5, 8))
