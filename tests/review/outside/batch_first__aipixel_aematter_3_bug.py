"""AEALblock rearranges its windows to [(b h1), (h2 w), c] but its nn.MultiheadAttention is built batch-second, so it attends across windows instead of within one.

Report: https://github.com/aipixel/AEMatter/issues/3
Class: batch_first
Decidable: code
"""

import torch
from torch import nn


class AEALblock(nn.Module):
    def __init__(self, d_model, nhead, width):
        super().__init__()
        self.width = width
        self.attention = nn.MultiheadAttention(d_model // 2, nhead // 2, dropout=0.0)  # bug

    def forward(self, src):
        b, c, h, w = src.shape
        x1 = src[:, 0 : c // 2]
        # 'b c (h1 h2) w -> (b h1) (h2 w) c'
        x1_ = x1.reshape(b, c // 2, h // self.width, self.width, w)
        x1_ = x1_.permute(0, 2, 3, 4, 1).reshape(b * (h // self.width), self.width * w, c // 2)
        x1 = self.attention(x1_, x1_, x1_)[0]  # bug
        return x1


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = AEALblock(d_model=8, nhead=4, width=2).eval()
    src = torch.randn(2, 8, 4, 3)
    with torch.no_grad():
        return block(src)
