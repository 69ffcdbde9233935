"""The additive mask ``(-1e10) * (1 - mask)`` broadcasts over columns: padded keys get -1e10 in every query row.

Report: https://github.com/lsdefine/attention-is-all-you-need-keras/issues/16
Class: padding_axis
"""

import torch


class ScaledDotProductAttention:
    def __init__(self, d_model):
        self.temper = d_model**0.5

    def __call__(self, q, k, v, mask):
        attn = torch.bmm(q, k.transpose(1, 2)) / self.temper  # (batch, len_q, len_k)
        mmask = (-1e10) * (1 - mask[:, None, :])
        attn = attn + mmask
        attn = torch.softmax(attn, dim=-1)
        return torch.bmm(attn, v), attn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 8)
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # 0 = padding
    return ScaledDotProductAttention(8)(q, k, v, mask)[0]
