"""The kv-cache path keeps ``is_causal=False`` for a single-token decode (Tq == 1) and an explicit offset mask for a chunk, as the report notes.

Report: https://github.com/karpathy/nanochat/pull/456
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F


def attend(q, k, v):
    tq, tk = q.size(2), k.size(2)
    if tq == tk:
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    elif tq == 1:
        y = F.scaled_dot_product_attention(q, k, v, is_causal=False)
    else:
        prefix = torch.ones(tq, tk - tq, dtype=torch.bool)
        allowed = torch.cat([prefix, torch.tril(torch.ones(tq, tq, dtype=torch.bool))], dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return y.transpose(1, 2)  # (B, Tq, H, D)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 1, 4)  # (B, H, Tq, D)
    k = torch.randn(1, 2, 6, 4)  # (B, H, Tk, D)
    v = torch.randn(1, 2, 6, 4)
    return attend(q, k, v)
