"""The mask is made lower-triangular, as the report's question expects, but ``nn.MultiheadAttention`` reads True as forbidden: the past and the token itself are hidden, the future shown.

Report: https://github.com/jankrepl/mildlyoverfitted/issues/20
Class: causal_diagonal
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, n_embd, n_head, n_positions):
        super().__init__()
        self.attention = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.register_buffer(
            "mask",
            torch.tril(torch.ones(n_positions, n_positions)).to(dtype=torch.bool),  # bug
        )

    def forward(self, x):
        n_tokens = x.shape[1]
        attn_mask = self.mask[:n_tokens, :n_tokens]
        return self.attention(x, x, x, attn_mask=attn_mask, need_weights=False)[0]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    return Block(8, 2, 6)(torch.randn(2, 4, 8))
