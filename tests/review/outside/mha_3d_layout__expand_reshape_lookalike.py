"""A per-sample [B, L, S] boolean mask expanded over the heads as mask[:, None].expand(B, H, L, S) and reshaped to [B * H, L, S] for a batch_first nn.MultiheadAttention.

Correct: nn.MultiheadAttention indexes a 3-D attn_mask as batch_idx * num_heads + head_idx; putting
the head axis right after the batch axis before the reshape gives exactly that batch-major order
(the same tiling as repeat_interleave(num_heads, dim=0)).
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    B, L, E, H = 2, 4, 8, 2
    mha = nn.MultiheadAttention(E, H, batch_first=True)
    x = torch.randn(B, L, E)
    lengths = torch.tensor([4, 2])
    key_is_pad = torch.arange(L)[None, :] >= lengths[:, None]  # [B, S]
    mask = key_is_pad[:, None, :].expand(B, L, L)  # [B, L, S], True = masked
    attn_mask = mask[:, None].expand(B, H, L, L).reshape(B * H, L, L)
    out, _ = mha(x, x, x, attn_mask=attn_mask)
    return out
