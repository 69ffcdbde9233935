"""A chunk of T new queries attends over a key cache of length S through the last T rows of an S x S lower triangle, torch.tril(torch.ones(S, S, dtype=torch.bool))[-T:, :], passed to F.scaled_dot_product_attention.

Correct: slicing the last T rows aligns the causal triangle bottom-right, so the i-th new query sees
the whole cached prefix plus the new tokens up to itself (True = attend for SDPA).
"""

import torch
import torch.nn.functional as F


def run() -> torch.Tensor:
    torch.manual_seed(0)
    S, T, D = 6, 2, 8
    q = torch.randn(1, 2, T, D)
    k, v = torch.randn(2, 1, 2, S, D).unbind(0)
    mask = torch.tril(torch.ones(S, S, dtype=torch.bool))[-T:, :]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
