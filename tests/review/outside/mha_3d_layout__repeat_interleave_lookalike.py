"""A per-sample [B, L, S] boolean mask tiled to [B * num_heads, L, S] with repeat_interleave for nn.MultiheadAttention.

Correct: nn.MultiheadAttention reads a 3-D mask at index batch * num_heads + head, and
repeat_interleave(num_heads, dim=0) puts each sample's mask on its own heads' consecutive rows.
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    num_heads = 2
    mha = nn.MultiheadAttention(8, num_heads, batch_first=True).eval()
    x = torch.randn(3, 4, 8)
    lengths = torch.tensor([4, 2, 3])
    pad = torch.arange(4)[None, :] >= lengths[:, None]  # [B, S], True = padding
    attn_mask = pad[:, None, :].expand(3, 4, 4)  # [B, L, S]
    attn_mask = attn_mask.repeat_interleave(num_heads, dim=0)  # [B * H, L, S]
    with torch.no_grad():
        return mha(x, x, x, attn_mask=attn_mask)[0]
