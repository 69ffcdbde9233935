"""The demo's causal mask, ``triu(..., diagonal=1)``: only keys after the query are forbidden; each token attends to itself.

Report: https://github.com/TransformerLensOrg/TransformerLens/issues/284
Class: causal_diagonal
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("IGNORE", torch.tensor(-1e5, dtype=torch.float32))

    def apply_causal_mask(self, attn_scores):
        mask = torch.triu(
            torch.ones(attn_scores.size(-2), attn_scores.size(-1), device=attn_scores.device),
            diagonal=1,
        ).bool()
        attn_scores.masked_fill_(mask, self.IGNORE)
        return attn_scores

    def forward(self, q, k, v):
        attn_scores = q @ k.transpose(-1, -2) / q.size(-1) ** 0.5  # (batch, head, q_pos, k_pos)
        attn_pattern = self.apply_causal_mask(attn_scores).softmax(-1)
        return attn_pattern @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8)
    return Attention()(q, k, v)
