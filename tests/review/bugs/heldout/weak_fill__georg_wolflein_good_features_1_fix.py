"""The masked logits are set to -inf with masked_fill(~mask), so the softmax gives them zero weight, as the pull request does.

Report: https://github.com/georg-wolflein/good-features/pull/1
Class: weak_fill
"""

import torch
from torch import nn


class MaskedAttention(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.attention = nn.Linear(d_model, 1)

    def forward(self, x, mask):
        # x: (batch, n_tiles, d_model); mask: (batch, n_tiles), True = real tile
        a = self.attention(x).squeeze(-1)  # (batch, n_tiles)
        a = torch.masked_fill(a, ~mask, -torch.inf)
        weights = torch.softmax(a, dim=-1)
        return (weights.unsqueeze(-1) * x).sum(dim=1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mask = torch.tensor([[True, True, True, False, False, False]])
    return MaskedAttention(4)(torch.randn(1, 6, 4), mask)
