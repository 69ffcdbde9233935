"""The Boolean mask is passed to scaled_dot_product_attention as ``attn_mask.to(torch.bool).to(torch.float)``: a float mask is added, so allowed keys get +1 and forbidden keys 0.

Report: https://github.com/pytorch/pytorch/issues/103963
Class: bool_to_float
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(13)
    q = torch.rand(1, 1, 8, 8)
    k = torch.rand(1, 1, 8, 8)
    v = torch.rand(1, 1, 8, 8)

    attn_mask = torch.rand(1, 1, 8, 8)
    # make only attn_mask[..., :4, :4] nonzero
    attn_mask[..., 4:, :] = 0
    attn_mask[..., :, 4:] = 0

    return F.scaled_dot_product_attention(q, k, v, attn_mask.to(torch.bool).to(torch.float))  # bug
