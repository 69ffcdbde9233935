"""The softmax runs over dim=2, the key axis j of the einsum, as the maintainer agreed.

Report: https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/146
Class: softmax_axis
"""

import torch
from torch import nn


class AttentionBlock(nn.Module):
    def __init__(self, n_channels, n_heads=1, d_k=None):
        super().__init__()
        if d_k is None:
            d_k = n_channels
        self.projection = nn.Linear(n_channels, n_heads * d_k * 3)
        self.output = nn.Linear(n_heads * d_k, n_channels)
        self.scale = d_k**-0.5
        self.n_heads = n_heads
        self.d_k = d_k

    def forward(self, x):
        # x: (batch_size, seq, n_channels)
        batch_size = x.shape[0]
        qkv = self.projection(x).view(batch_size, -1, self.n_heads, 3 * self.d_k)
        q, k, v = torch.chunk(qkv, 3, dim=-1)
        attn = torch.einsum("bihd,bjhd->bijh", q, k) * self.scale  # (b, i, j, h)
        attn = attn.softmax(dim=2)
        res = torch.einsum("bijh,bjhd->bihd", attn, v)
        res = res.reshape(batch_size, -1, self.n_heads * self.d_k)
        return self.output(res) + x


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = AttentionBlock(n_channels=8, n_heads=2, d_k=4)
    return block(torch.randn(2, 6, 8))
