"""The attention takes the [B, T, C] features it is given: nn.MultiheadAttention is built with batch_first=True.

The maintainers replaced the block with a convolution; this fix is the layout the report asks for.

Report: https://github.com/JusperLee/TDANet/issues/3
Class: batch_first
"""

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, in_chan, n_head, dropout=0.0):
        super().__init__()
        self.attn_in_norm = nn.LayerNorm(in_chan)
        self.attn = nn.MultiheadAttention(in_chan, n_head, dropout, batch_first=True)
        self.norm = nn.LayerNorm(in_chan)

    def forward(self, x):
        x = x.transpose(1, 2)  # [B, C, T] -> [B, T, C]
        residual = x
        x = self.attn_in_norm(x)
        x = self.attn(x, x, x, attn_mask=None, key_padding_mask=None)[0]
        x = self.norm(x + residual)
        return x.transpose(2, 1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = MultiHeadAttention(in_chan=8, n_head=2).eval()
    x = torch.randn(3, 8, 6)  # [B, C, T]
    with torch.no_grad():
        return block(x)
