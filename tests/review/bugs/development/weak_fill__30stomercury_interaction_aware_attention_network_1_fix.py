"""The paddings are -1e8 everywhere, so the masked scores get -1e8 before the softmax, as the report's reply agrees.

Report: https://github.com/30stomercury/Interaction-Aware-Attention-Network/issues/1
Class: weak_fill
"""

import torch


def attention(vu, mask_att):
    # vu: (batch, len) scores; mask_att: (batch, len), 1 = real, 0 = padding
    paddings = torch.ones_like(mask_att) * (-1e8)
    vu = torch.where(mask_att == 0, paddings, vu)
    return torch.softmax(vu, dim=-1)


def run() -> torch.Tensor:
    vu = torch.tensor([[0.5, -1.0, -2.0, -3.0]])
    mask_att = torch.tensor([[1.0, 1.0, 0.0, 0.0]])
    return attention(vu, mask_att)
