"""With qk_norm the flash path rescales q by default_scale / self.scale before F.scaled_dot_product_attention, which divides the logits by self.scale instead of multiplying by it, unlike the non-flash path.

Report: https://github.com/lucidrains/x-transformers/issues/190
Class: scale
Decidable: code
"""

import torch
from torch.nn import functional as F


class Attend(torch.nn.Module):
    def __init__(self, qk_norm=True, scale=10.0):
        super().__init__()
        self.qk_norm = qk_norm
        self.scale = scale

    def flash_attn(self, q, k, v):
        if self.qk_norm:
            default_scale = q.shape[-1] ** -0.5
            q = q * (default_scale / self.scale)  # bug
        return F.scaled_dot_product_attention(q, k, v)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 5, 8).unbind(0)
    q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
    return Attend(qk_norm=True, scale=10.0).flash_attn(q, k, v)
