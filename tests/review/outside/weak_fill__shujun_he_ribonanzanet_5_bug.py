"""ScaledDotProductAttention fills the padded keys with -1e-9, which is about 0, so padding keeps its share of the softmax.

Report: https://github.com/Shujun-He/RibonanzaNet/issues/5
Class: weak_fill
Decidable: code
"""

import torch
from torch import nn
from torch.nn import functional as F


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature, attn_dropout=0.0):
        super().__init__()
        self.temperature = temperature
        self.dropout = nn.Dropout(attn_dropout)

    def forward(self, q, k, v, mask=None, attn_mask=None):
        attn = torch.matmul(q, k.transpose(2, 3)) / self.temperature
        if mask is not None:
            attn = attn + mask
        if attn_mask is not None:
            attn = attn.float().masked_fill(attn_mask == 0, float("-1e-9"))  # bug
        attn = self.dropout(F.softmax(attn, dim=-1))  # bug
        output = torch.matmul(attn, v)
        return output, attn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
    src_mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    attn_mask = src_mask[:, None, None, :]
    module = ScaledDotProductAttention(temperature=4**0.5).eval()
    return module(q, k, v, attn_mask=attn_mask)[0]
