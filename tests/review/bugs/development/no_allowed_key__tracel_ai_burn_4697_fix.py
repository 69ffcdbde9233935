"""The fallback softmax floors the row maximum (-1e4) and the row sum (1e-6): a fully masked row gives 0 instead of NaN.

Report: https://github.com/tracel-ai/burn/pull/4697
Class: no_allowed_key
"""

import torch


def attention_fallback(query, key, value, bool_mask):
    scores = query @ key.transpose(-2, -1) / query.size(-1) ** 0.5  # (B, H, L, S)
    causal = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)
    scores = scores.masked_fill(bool_mask | causal, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True).clamp(min=-1e4)
    shifted = (scores - row_max).exp()
    row_sum = shifted.sum(dim=-1, keepdim=True).clamp(min=1e-6)
    return (shifted / row_sum) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8)
    bool_mask = torch.zeros(1, 1, 4, 4, dtype=torch.bool)
    bool_mask[..., 0] = True  # key 0 is masked: query 0 has no key left
    return attention_fallback(query, key, value, bool_mask)
