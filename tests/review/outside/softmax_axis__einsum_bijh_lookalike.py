"""A U-Net self-attention block forms scores as einsum('bihd,bjhd->bijh') and normalises with softmax(dim=2).

Correct: in the [batch, i (query), j (key), head] layout dim=2 is the key index j, so each query's
weights over the keys sum to one; the einsum that follows contracts over the same j.
"""

import torch
from torch import nn


class AttentionBlock(nn.Module):
    def __init__(self, n_channels: int, n_heads: int = 1, d_k: int = None, n_groups: int = 4):
        super().__init__()
        if d_k is None:
            d_k = n_channels
        self.norm = nn.GroupNorm(n_groups, n_channels)
        self.projection = nn.Linear(n_channels, n_heads * d_k * 3)
        self.output = nn.Linear(n_heads * d_k, n_channels)
        self.scale = d_k**-0.5
        self.n_heads = n_heads
        self.d_k = d_k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch_size, n_channels, height, width = x.shape
        x = x.view(batch_size, n_channels, -1).permute(0, 2, 1)
        qkv = self.projection(x).view(batch_size, -1, self.n_heads, 3 * self.d_k)
        q, k, v = torch.chunk(qkv, 3, dim=-1)
        attn = torch.einsum("bihd,bjhd->bijh", q, k) * self.scale
        attn = attn.softmax(dim=2)
        res = torch.einsum("bijh,bjhd->bihd", attn, v)
        res = res.reshape(batch_size, -1, self.n_heads * self.d_k)
        res = self.output(res)
        res += x
        res = res.permute(0, 2, 1).reshape(batch_size, n_channels, height, width)
        return res


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = AttentionBlock(n_channels=8, n_heads=2, d_k=4).eval()
    with torch.no_grad():
        return block(torch.randn(2, 8, 2, 3))
