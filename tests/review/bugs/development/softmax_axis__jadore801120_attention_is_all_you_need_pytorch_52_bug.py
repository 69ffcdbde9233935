"""nn.Softmax() without dim on the 3-D (n_head * b, len_q, len_k) scores normalises over dim 0, the heads and batch.

Report: https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/52
Class: softmax_axis
"""

import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    """Scaled Dot-Product Attention"""

    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature
        self.softmax = nn.Softmax()  # bug

    def forward(self, q, k, v):
        attn = torch.bmm(q, k.transpose(1, 2))  # (n_head * b, len_q, len_k)
        attn = attn / self.temperature
        attn = self.softmax(attn)  # bug
        return torch.bmm(attn, v)  # (n_head * b, len_q, d_v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = ScaledDotProductAttention(temperature=4.0)
    q, k, v = torch.randn(3, 4, 5, 16).unbind(0)
    return attention(q, k, v)
