"""The decomposed attention normalises by the row sum: a fully masked row has numerator 0 and denominator 0, so ``P / sum`` is NaN.

Report: https://github.com/iree-org/iree/pull/24447
Class: no_allowed_key
"""

import torch


def attention(q, k, v, mask):
    s = (q @ k.transpose(-2, -1)) / q.size(-1) ** 0.5  # (B, L, S)
    s = s.masked_fill(~mask, float("-inf"))
    lowest = torch.tensor(torch.finfo(s.dtype).min)
    m = torch.maximum(s.amax(dim=-1, keepdim=True), lowest)  # running max starts finite
    p = (s - m).exp()
    row_sum = p.sum(dim=-1, keepdim=True)
    return (p / row_sum) @ v  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 4)
    mask = torch.ones(2, 3, 3, dtype=torch.bool)
    mask[1, 0] = False  # query 0 of item 1 may attend nothing
    return attention(q, k, v, mask)
