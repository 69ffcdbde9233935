"""The valid-pixel mask is ``~`` of a uint8 occlusion mask: since torch 1.3 ``~0`` is 255, not 1, so no pixel equals 1, the residual selection is empty and the loss is NaN (no gradient).

Report: https://github.com/lvzhaoyang/DeeperInverseCompositionalAlgorithm/pull/5
Class: invert_non_bool
"""

import torch


def masked_residual_loss(residual, occlusion):
    valid = ~occlusion  # bug
    return residual[valid == 1].abs().mean()


def run() -> torch.Tensor:
    torch.manual_seed(0)
    residual = torch.randn(2, 4, 4)
    occlusion = (torch.rand(2, 4, 4) > 0.7).to(torch.uint8)  # 1 = occluded
    return masked_residual_loss(residual, occlusion)
