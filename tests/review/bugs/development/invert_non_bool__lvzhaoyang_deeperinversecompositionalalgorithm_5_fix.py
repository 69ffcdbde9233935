"""The valid-pixel mask is ``1 - occlusion`` on the uint8 occlusion mask: 1 exactly on visible pixels, whose residuals make the loss.

Report: https://github.com/lvzhaoyang/DeeperInverseCompositionalAlgorithm/pull/5
Class: invert_non_bool
"""

import torch


def masked_residual_loss(residual, occlusion):
    valid = 1 - occlusion
    return residual[valid == 1].abs().mean()


def run() -> torch.Tensor:
    torch.manual_seed(0)
    residual = torch.randn(2, 4, 4)
    occlusion = (torch.rand(2, 4, 4) > 0.7).to(torch.uint8)  # 1 = occluded
    return masked_residual_loss(residual, occlusion)
