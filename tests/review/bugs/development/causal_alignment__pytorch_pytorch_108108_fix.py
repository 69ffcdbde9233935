"""Draft tokens are verified against the cache with the mask aligned bottom-right, as the report proposes: ``1 1 1 1 0 / 1 1 1 1 1``.

Report: https://github.com/pytorch/pytorch/issues/108108
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def verify_draft(q, k, v):
    seqlen_q, seqlen_kv = q.size(-2), k.size(-2)
    keep = torch.ones(seqlen_q, seqlen_kv, dtype=torch.bool).tril(seqlen_kv - seqlen_q)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 8)  # seqlen_q = 2 draft tokens
    k = torch.randn(1, 2, 5, 8)  # seqlen_kv = 5
    v = torch.randn(1, 2, 5, 8)
    return verify_draft(q, k, v)
