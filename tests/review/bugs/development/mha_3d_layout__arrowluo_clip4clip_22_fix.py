"""The cross-encoder block expands the per-sample additive mask with ``repeat_interleave(self.n_head, dim=0)``, the batch-major layout ``nn.MultiheadAttention`` reads.

Report: https://github.com/ArrowLuo/CLIP4Clip/issues/22
Class: mha_3d_layout
"""

import torch
from torch import nn


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.n_head = n_head

    def attention(self, x, attn_mask):
        attn_mask_ = attn_mask.repeat_interleave(self.n_head, dim=0)
        return self.attn(x, x, x, need_weights=False, attn_mask=attn_mask_)[0]

    def forward(self, x, attn_mask):
        return x + self.attention(x, attn_mask)


def build_attention_mask(attention_mask):
    extended_attention_mask = (1.0 - attention_mask.unsqueeze(1)) * -1000000.0
    return extended_attention_mask.expand(-1, attention_mask.size(1), -1)  # (N, L, L)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = ResidualAttentionBlock(8, 2)
    x = torch.randn(4, 2, 8)  # (L, N, D)
    attention_mask = torch.tensor([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    return block(x, build_attention_mask(attention_mask))
