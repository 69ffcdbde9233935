"""The Sage2 causal attention bounds the keys with kv_idx <= q_idx + (kv_len - qo_len), right-aligned, so a query chunk at the tail of a KV cache sees all the cached keys.

Report: https://github.com/thu-ml/SageAttention/pull/372
Class: causal_alignment
"""

import math

import torch


def sageattn_causal(q, k, v, sm_scale=None):
    """q: [B, H, qo_len, D], k and v: [B, H, kv_len, D]."""
    qo_len, kv_len = q.shape[-2], k.shape[-2]
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    q_idx = torch.arange(qo_len)[:, None]
    kv_idx = torch.arange(kv_len)[None, :]
    causal = kv_idx <= q_idx + (kv_len - qo_len)
    s = torch.matmul(q, k.transpose(-1, -2)) * sm_scale
    s = s.masked_fill(~causal, float("-inf"))
    p = torch.softmax(s, dim=-1)
    return torch.matmul(p, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 8)  # two new tokens
    k = torch.randn(1, 2, 6, 8)  # four cached tokens and the two new ones
    v = torch.randn(1, 2, 6, 8)
    return sageattn_causal(q, k, v)
