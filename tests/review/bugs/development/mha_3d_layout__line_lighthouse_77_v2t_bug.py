"""The V2T cross-attention turns the video padding into an additive ``(N, L, S)`` mask and tiles it with ``.repeat(nhead, 1, 1)``: each text query of sample b is masked with another sample's video padding.

Report: https://github.com/line/lighthouse/pull/77
Class: mha_3d_layout
"""

import torch
from torch import nn


class V2TEncoderLayer(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.nhead = nhead
        self.cross_attn = nn.MultiheadAttention(d_model, nhead)

    def forward(self, text, video, video_mask):
        # text: (L, N, E), video: (S, N, E), video_mask: (N, S) with 1 = real clip
        bias = (1.0 - video_mask)[:, None, :] * -1e4  # (N, 1, S)
        bias = bias.expand(-1, text.size(0), -1)  # (N, L, S)
        attn_mask = bias.repeat(self.nhead, 1, 1)  # bug
        return self.cross_attn(text, video, video, attn_mask=attn_mask)[0]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = V2TEncoderLayer(8, 2)
    text = torch.randn(3, 2, 8)
    video = torch.randn(5, 2, 8)
    video_mask = torch.tensor([[1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0]])
    return layer(text, video, video_mask)
