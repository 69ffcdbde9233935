"""A DDPM U-Net attention block whose scores are laid out as [batch, i (query), j (key), heads] by einsum('bihd,bjhd->bijh') and normalised with attn.softmax(dim=2).

Correct: in the 'bijh' layout the key axis is dim 2, not the last one, so softmax(dim=2) makes every
query's weights over the keys sum to 1; the values are then gathered with einsum('bijh,bjhd->bihd').
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
        self.scale = d_k ** -0.5
        self.n_heads = n_heads
        self.d_k = d_k

    def forward(self, x):
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
        res = res.permute(0, 2, 1).view(batch_size, n_channels, height, width)
        return res


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = AttentionBlock(8, n_heads=2, d_k=4)
    return block(torch.randn(2, 8, 3, 3))
