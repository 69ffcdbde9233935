"""The masked scores are filled with -10000, the value the fix put at that line.

Report: https://github.com/hyunwoongko/transformer/issues/10
Class: weak_fill
"""

import math

import torch
from torch import nn


class ScaleDotProductAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v, mask=None, e=1e-12):
        batch_size, head, length, d_tensor = k.size()
        k_t = k.transpose(2, 3)  # transpose
        score = (q @ k_t) / math.sqrt(d_tensor)  # scaled dot product
        if mask is not None:
            score = score.masked_fill(mask == 0, -10000)
        score = self.softmax(score)
        v = score @ v
        return v, score


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)
    mask = torch.tril(torch.ones(4, 4))[None, None]  # 0 = the future
    return ScaleDotProductAttention()(q, k, v, mask)[0]
