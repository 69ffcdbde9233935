"""The tiled attention replaces a masked key's score with MASK_VALUE = -10000; a valid score below it loses the row max to the masked key.

Report: https://github.com/ohdearquant/lattice/issues/361
Class: weak_fill
"""

import torch

MASK_VALUE = -10_000.0  # bug


def tiled_attention_head(q, k, v, attention_mask, scale):
    # q, k: (seq_len, head_dim); v: (seq_len, head_dim); attention_mask: (seq_len,), 0 = masked key
    out = torch.zeros_like(q)
    for r in range(q.shape[0]):
        row = (k @ q[r]) * scale
        row = torch.where(attention_mask == 0, MASK_VALUE, row)  # bug
        local_max = row.max()
        row = (row - local_max).exp()
        row_sum = row.sum()
        out[r] = (row / row_sum) @ v
    return out


def run() -> torch.Tensor:
    q = torch.tensor([[-20000.0], [0.0]])
    k = torch.tensor([[1.0], [0.0]])
    v = torch.tensor([[1.0], [100.0]])
    attention_mask = torch.tensor([1, 0])  # key 1 is masked
    return tiled_attention_head(q, k, v, attention_mask, scale=1.0)
