"""The T2V cross-attention mask is expanded to ``(N * nhead, L, S)`` with ``repeat_interleave(nhead, dim=0)``: row ``b * nhead + h`` is sample b's mask.

Report: https://github.com/line/lighthouse/pull/77
Class: mha_3d_layout
"""

import torch
from torch import nn


class T2VEncoderLayer(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.nhead = nhead
        self.cross_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)

    def forward(self, video, text, text_mask):
        # text_mask: (N, S), True = real token
        mask = ~text_mask[:, None, :].expand(-1, video.size(1), -1)  # (N, L, S), True = masked
        mask = mask.repeat_interleave(self.nhead, dim=0)
        return self.cross_attn(video, text, text, attn_mask=mask)[0]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = T2VEncoderLayer(8, 2)
    video = torch.randn(2, 3, 8)
    text = torch.randn(2, 4, 8)
    text_mask = torch.tensor([[True, True, True, True], [True, False, False, False]])
    return layer(video, text, text_mask)
