"""Sequential generation with a kv cache calls SDPA without ``is_causal`` for the single new query: it sees every cached key.

Report: https://github.com/pytorch/pytorch/issues/144858
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F


def generate(x, steps):
    k_cache, v_cache = x, x  # (B, H, S, E)
    q = x[:, :, -1:]  # (B, H, 1, E)
    outputs = []
    for _ in range(steps):
        out = F.scaled_dot_product_attention(q, k_cache, v_cache, is_causal=False)
        outputs.append(out)
        k_cache = torch.cat([k_cache, out], dim=-2)
        v_cache = torch.cat([v_cache, out], dim=-2)
        q = out
    return torch.cat(outputs, dim=-2)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    return generate(torch.randn(1, 2, 4, 8), steps=3)
