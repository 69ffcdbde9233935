"""The kv-cache path calls SDPA with ``is_causal=True`` for every step, also a single-token decode (Tq == 1), where the top-left causal mask keeps only the first key.

Report: https://github.com/karpathy/nanochat/pull/456
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F


def attend(q, k, v):
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # bug
    return y.transpose(1, 2)  # (B, Tq, H, D)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 1, 4)  # (B, H, Tq, D)
    k = torch.randn(1, 2, 6, 4)  # (B, H, Tk, D)
    v = torch.randn(1, 2, 6, 4)
    return attend(q, k, v)
