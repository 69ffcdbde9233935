"""The masked attention scores are filled with -1e-9, which is basically 0 and does not mask out padding.

Report: https://github.com/Shujun-He/RibonanzaNet/issues/5
Class: weak_fill
"""

import torch
import torch.nn.functional as F
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, q, k, v, mask=None):
        attn = torch.matmul(q, k.transpose(2, 3)) / self.temperature  # (b, h, lq, lk)
        if mask is not None:
            attn = attn.float().masked_fill(mask == 0, -1e-9)  # bug
        attn = F.softmax(attn, dim=-1)
        return torch.matmul(attn, v), attn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    mask = torch.tensor([1, 1, 0, 0])[None, None, None, :]  # 1 = real, 0 = padding
    return ScaledDotProductAttention(temperature=8**0.5)(q, k, v, mask)[1]
