"""Draft tokens are verified against the cache with ``is_causal=True``: for seqlen_q = 2 and seqlen_kv = 5 the mask keeps ``1 0 0 0 0 / 1 1 0 0 0`` (top-left), not ``1 1 1 1 0 / 1 1 1 1 1``.

Report: https://github.com/pytorch/pytorch/issues/108108
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def verify_draft(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 8)  # seqlen_q = 2 draft tokens
    k = torch.randn(1, 2, 5, 8)  # seqlen_kv = 5
    v = torch.randn(1, 2, 5, 8)
    return verify_draft(q, k, v)
