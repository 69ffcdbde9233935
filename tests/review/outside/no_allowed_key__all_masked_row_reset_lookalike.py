"""A per-query boolean attn_mask (True = masked) for nn.MultiheadAttention whose fully masked rows are set back to all-False before the call, so no query is left without a key.

Correct: the Mask2Former-style guard `attn_mask[torch.where(attn_mask.sum(-1) == attn_mask.shape[-1])] = False`
turns every row that masks all keys into a row that masks none, so the softmax never sees a row
of -inf and the output is finite.
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    num_heads, num_queries, hw, embed_dim, batch = 2, 3, 4, 8, 1
    cross_attn = nn.MultiheadAttention(embed_dim, num_heads)
    tgt = torch.randn(num_queries, batch, embed_dim)
    memory = torch.randn(hw, batch, embed_dim)
    outputs_mask = torch.randn(batch, num_queries, hw)
    outputs_mask[:, 1] = -5.0  # the second query's predicted mask is empty
    attn_mask = (outputs_mask.sigmoid() < 0.5).bool()
    attn_mask = attn_mask.unsqueeze(1).repeat(1, num_heads, 1, 1).flatten(0, 1)
    attn_mask[torch.where(attn_mask.sum(-1) == attn_mask.shape[-1])] = False
    out, _ = cross_attn(tgt, memory, memory, attn_mask=attn_mask)
    return out
