"""The cross model joins text and video masks and expands them to an additive ``(N, L, L)`` mask, then each block tiles it with ``repeat(self.n_head, 1, 1)``: the heads of one pair read another pair's padding.

Report: https://github.com/ArrowLuo/CLIP4Clip/issues/22
Class: mha_3d_layout
"""

import torch
from torch import nn


class CrossModel(nn.Module):
    def __init__(self, width, heads, layers):
        super().__init__()
        self.n_head = heads
        self.resblocks = nn.ModuleList(nn.MultiheadAttention(width, heads) for _ in range(layers))

    def build_attention_mask(self, attention_mask):
        extended_attention_mask = (1.0 - attention_mask.unsqueeze(1)) * -1000000.0
        return extended_attention_mask.expand(-1, attention_mask.size(1), -1)

    def forward(self, concat_input, concat_mask):
        attn_mask = self.build_attention_mask(concat_mask)
        x = concat_input.permute(1, 0, 2)  # NLD -> LND
        for attn in self.resblocks:
            x = x + attn(x, x, x, attn_mask=attn_mask.repeat(self.n_head, 1, 1))[0]  # bug
        return x.permute(1, 0, 2)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    text_mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    video_mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    concat_mask = torch.cat((text_mask, video_mask), dim=1)
    concat_input = torch.randn(2, 5, 8)
    return CrossModel(8, 2, 2)(concat_input, concat_mask)
