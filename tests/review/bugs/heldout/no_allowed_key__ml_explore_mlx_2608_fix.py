"""The fallback attention fills masked scores with the dtype's finite minimum: a fully masked row is finite and does not spread NaN.

Report: https://github.com/ml-explore/mlx/pull/2608
Class: no_allowed_key
"""

import torch


def sdpa_fallback(q, k, v, mask, scale):
    scores = (q * scale) @ k.transpose(-1, -2)  # (B, H, L, S)
    scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 2, 3, 4)
    mask = torch.ones(2, 1, 3, 3, dtype=torch.bool)
    mask[1] = False  # an empty sequence in the batch
    return sdpa_fallback(q, k, v, mask, scale=0.5)
