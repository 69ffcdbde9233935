"""The shape of pytorch/examples' minGPT-ddp: a float tril of ones registered as a buffer and given to nn.MultiheadAttention as attn_mask, which adds it.

Report: https://github.com/pytorch/pytorch/issues/21518
Class: bool_to_float
"""

import torch
from torch import nn


class MultiheadAttentionLayer(nn.Module):
    """A multi-head masked self-attention layer with a projection at the end."""

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        assert n_embd % n_head == 0
        mask = torch.tril(torch.ones(block_size, block_size))  # bug
        self.register_buffer("mask", mask.view(1, 1, block_size, block_size))
        self.attn = torch.nn.MultiheadAttention(
            embed_dim=n_embd, num_heads=n_head, dropout=0.0, batch_first=True
        )

    def forward(self, x):
        _, seq_size, _ = x.size()
        y = self.attn(x, x, x, attn_mask=self.mask[0, 0, :seq_size, :seq_size])[0]  # bug
        return y


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = MultiheadAttentionLayer(n_embd=8, n_head=2, block_size=6)
    return layer(torch.randn(2, 4, 8))
