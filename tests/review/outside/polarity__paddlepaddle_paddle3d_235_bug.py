"""BEVFormer's MultiheadAttention wrapper passes on a PyTorch-style boolean attn_mask (True = may not attend) to an attention whose boolean mask means the opposite (True = takes part, as paddle.nn.MultiHeadAttention and F.scaled_dot_product_attention read it).

Report: https://github.com/PaddlePaddle/Paddle3D/pull/235
Class: polarity
Decidable: code

The project runs on Paddle; this reproduction uses F.scaled_dot_product_attention, whose boolean
attn_mask has Paddle's convention.
"""

import torch
from torch import nn
from torch.nn import functional as F


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dims, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.in_proj = nn.Linear(embed_dims, 3 * embed_dims)
        self.out_proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, query, attn_mask=None):
        # attn_mask as in torch.nn.MultiheadAttention: True = not allowed to attend
        bs, n, c = query.shape
        q, k, v = self.in_proj(query).view(bs, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)  # bug
        return self.out_proj(out.transpose(1, 2).reshape(bs, n, c))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = MultiheadAttention(embed_dims=8, num_heads=2)
    query = torch.randn(1, 4, 8)
    # two groups of queries that may only attend within their own group
    group = torch.tensor([0, 0, 1, 1])
    attn_mask = group[:, None] != group[None, :]  # True = not allowed  # bug
    return attn(query, attn_mask=attn_mask)
