"""The text encoder layer tiles its per-sample [bs, num_q, num_k] mask to [bs * nhead, ...] with repeat, while nn.MultiheadAttention reads index b * nhead + h, so heads get other samples' masks.

Report: https://github.com/longzw1997/Open-GroundingDino/issues/115
Class: mha_3d_layout
Decidable: code
"""

import torch
from torch import nn


class TransformerEncoderLayer(nn.Module):
    def __init__(self, d_model, nhead, dim_feedforward=16, dropout=0.0):
        super().__init__()
        self.nhead = nhead
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout)
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    @staticmethod
    def with_pos_embed(tensor, pos):
        return tensor if pos is None else tensor + pos

    def forward(self, src, src_mask=None, src_key_padding_mask=None, pos=None):
        # repeat attn mask
        if src_mask.dim() == 3 and src_mask.shape[0] == src.shape[1]:
            # bs, num_q, num_k
            src_mask = src_mask.repeat(self.nhead, 1, 1)  # bug
        q = k = self.with_pos_embed(src, pos)
        src2 = self.self_attn(q, k, value=src, attn_mask=src_mask)[0]  # bug
        src = self.norm1(src + src2)
        src2 = self.linear2(torch.relu(self.linear1(src)))
        return self.norm2(src + src2)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = TransformerEncoderLayer(d_model=8, nhead=2).eval()
    src = torch.randn(4, 2, 8)  # [seq, bs, d]
    # block-diagonal text masks (True = not allowed), different per sample
    src_mask = torch.ones(2, 4, 4, dtype=torch.bool)
    src_mask[0, :2, :2] = False
    src_mask[0, 2:, 2:] = False
    src_mask[1, :3, :3] = False
    src_mask[1, 3:, 3:] = False
    with torch.no_grad():
        return layer(src, src_mask=src_mask)
