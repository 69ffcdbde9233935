"""Masked scores are set to IGNORE = -1e5, but real scores can go below it, so the model attends outside the mask.

Report: https://github.com/TransformerLensOrg/TransformerLens/issues/318
Class: weak_fill
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, n_ctx):
        super().__init__()
        causal_mask = torch.tril(torch.ones((n_ctx, n_ctx)).bool())
        self.register_buffer("mask", causal_mask)
        self.register_buffer("IGNORE", torch.tensor(-1e5))  # bug

    def apply_causal_mask(self, attn_scores):
        # attn_scores: (batch, head_index, query_pos, key_pos)
        query_ctx_length = attn_scores.size(-2)
        key_ctx_length = attn_scores.size(-1)
        mask = self.mask[None, None, -query_ctx_length:, -key_ctx_length:]
        return torch.where(mask, attn_scores, self.IGNORE)

    def forward(self, attn_scores):
        return self.apply_causal_mask(attn_scores).softmax(dim=-1)


def run() -> torch.Tensor:
    attn_scores = torch.tensor([[[[-2e5, 0.0, 0.0], [-3e5, -2e5, 0.0], [-1.0, -2.0, -3.0]]]])
    return Attention(n_ctx=3)(attn_scores)
