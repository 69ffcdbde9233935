"""Masked keys get a -inf score, so their weight is exactly zero however low a valid score sits; an all-masked row is set to zero.

Report: https://github.com/ohdearquant/lattice/issues/361
Class: weak_fill
"""

import torch


def tiled_attention_head(q, k, v, attention_mask, scale):
    # q, k: (seq_len, head_dim); v: (seq_len, head_dim); attention_mask: (seq_len,), 0 = masked key
    out = torch.zeros_like(q)
    for r in range(q.shape[0]):
        row = (k @ q[r]) * scale
        row = torch.where(attention_mask == 0, float("-inf"), row)
        local_max = row.max()
        # an all-masked row (local_max == -inf) gets zero probabilities, not NaN
        row = (row - local_max).exp() if torch.isfinite(local_max) else torch.zeros_like(row)
        row_sum = row.sum()
        if row_sum > 0:
            out[r] = (row / row_sum) @ v
    return out


def run() -> torch.Tensor:
    q = torch.tensor([[-20000.0], [0.0]])
    k = torch.tensor([[1.0], [0.0]])
    v = torch.tensor([[1.0], [100.0]])
    attention_mask = torch.tensor([1, 0])  # key 1 is masked
    return tiled_attention_head(q, k, v, attention_mask, scale=1.0)
