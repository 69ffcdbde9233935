"""The ELA encoder's TransformerLayer gets [B, HW, C] features but builds nn.MultiheadAttention without batch_first, so positions of different images attend to each other.

Report: https://github.com/om-ai-lab/OmDet/issues/19
Class: batch_first
Decidable: code
"""

import torch
from torch import nn


class TransformerLayer(nn.Module):
    def __init__(self, d_model, nhead, dim_feedforward=16, dropout=0.0):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout)  # bug
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    @staticmethod
    def with_pos_embed(tensor, pos_embed):
        return tensor if pos_embed is None else tensor + pos_embed

    def forward(self, src, src_mask=None, pos_embed=None):
        q = k = self.with_pos_embed(src, pos_embed)
        src2 = self.self_attn(q, k, value=src, attn_mask=src_mask)[0]  # bug
        src = self.norm1(src + src2)
        src2 = self.linear2(torch.relu(self.linear1(src)))
        return self.norm2(src + src2)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = TransformerLayer(d_model=8, nhead=2).eval()
    src = torch.randn(3, 5, 8)  # [B, HW, C]
    pos_embed = torch.randn(1, 5, 8)
    with torch.no_grad():
        return layer(src, pos_embed=pos_embed)
