"""A batch-second nn.MultiheadAttention given [B, T, E] features that are transposed to [T, B, E] first and back afterwards.

Correct: the module is built without batch_first, and the features are handed over sequence-first,
as it expects; the output is transposed back to [B, T, E].
"""

import torch
from torch import nn


class GlobalAttention(nn.Module):
    def __init__(self, in_chan=8, n_head=2):
        super().__init__()
        self.attn = nn.MultiheadAttention(in_chan, n_head)

    def forward(self, x):
        x = x.transpose(0, 1)  # [B, T, C] -> [T, B, C]
        x = self.attn(x, x, x)[0]
        return x.transpose(0, 1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = GlobalAttention().eval()
    x = torch.randn(3, 6, 8)
    with torch.no_grad():
        return block(x)
