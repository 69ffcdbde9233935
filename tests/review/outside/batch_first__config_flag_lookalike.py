"""An encoder whose nn.MultiheadAttention takes batch_first from a config flag and transposes [B, T, E] features to [T, B, E] only when that same flag is False.

Correct: the layout given to the attention always matches the layout it was built for, whichever
value the caller's config holds; the case runs it both ways and returns the two results stacked.
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, embed_dim, num_heads, batch_first):
        super().__init__()
        self.batch_first = batch_first
        self.attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=batch_first)

    def forward(self, x):  # x: [B, T, E]
        if not self.batch_first:
            x = x.transpose(0, 1)
        out, _ = self.attn(x, x, x)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8)
    outs = []
    for batch_first in (True, False):
        torch.manual_seed(1)
        outs.append(Encoder(8, 2, batch_first)(x))
    return torch.stack(outs)
