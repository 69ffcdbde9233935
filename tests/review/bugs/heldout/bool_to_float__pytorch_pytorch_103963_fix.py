"""The mask stays Boolean (``attn_mask.to(torch.bool)``): SDPA masks the False keys instead of adding 0/1.

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

    return F.scaled_dot_product_attention(q, k, v, attn_mask.to(torch.bool))
