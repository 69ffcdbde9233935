"""Per-sample padding passed to a batch-second nn.MultiheadAttention as a [B, S] key_padding_mask, with a shared [L, S] causal attn_mask.

Correct: key_padding_mask is indexed by batch and needs no head tiling, and a 2-D attn_mask is
broadcast over batch and heads by the module itself; every query keeps its first key.
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2).eval()
    x = torch.randn(4, 3, 8)  # [T, B, E]
    lengths = torch.tensor([4, 2, 3])
    key_padding_mask = torch.arange(4)[None, :] >= lengths[:, None]  # [B, S], True = padding
    attn_mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)  # True = future
    with torch.no_grad():
        return mha(x, x, x, key_padding_mask=key_padding_mask, attn_mask=attn_mask)[0]
