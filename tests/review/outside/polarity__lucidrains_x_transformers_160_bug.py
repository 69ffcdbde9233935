"""Attend's flash path builds its causal mask with True meaning "masked out" and hands it to F.scaled_dot_product_attention, where a boolean True means "takes part", so each query sees only the future.

Report: https://github.com/lucidrains/x-transformers/issues/160
Class: polarity
Decidable: code
"""

import torch
from torch.nn import functional as F


class Attend(torch.nn.Module):
    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal

    def flash_attn(self, q, k, v, mask=None):
        i, j = q.shape[-2], k.shape[-2]
        if self.causal:
            causal_mask = torch.ones((i, j), dtype=torch.bool).triu(j - i + 1)
            mask = causal_mask  # bug
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return Attend(causal=True).flash_attn(q, k, v)
