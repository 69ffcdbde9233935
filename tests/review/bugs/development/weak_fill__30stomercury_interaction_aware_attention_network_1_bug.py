"""paddings = mask_att * -1e8 is 0 exactly where mask_att is 0, so the masked scores are filled with 0, not a large negative.

Report: https://github.com/30stomercury/Interaction-Aware-Attention-Network/issues/1
Class: weak_fill
"""

import torch


def attention(vu, mask_att):
    # vu: (batch, len) scores; mask_att: (batch, len), 1 = real, 0 = padding
    paddings = mask_att * (-1e8)  # bug
    vu = torch.where(mask_att == 0, paddings, vu)
    return torch.softmax(vu, dim=-1)


def run() -> torch.Tensor:
    vu = torch.tensor([[0.5, -1.0, -2.0, -3.0]])
    mask_att = torch.tensor([[1.0, 1.0, 0.0, 0.0]])
    return attention(vu, mask_att)
