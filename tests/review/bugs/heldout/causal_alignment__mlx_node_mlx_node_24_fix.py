"""Any multi-token chunk gets a causal mask aligned to the end of the cache (offset ``kv_len - seq_len``), warm cache or not.

Report: https://github.com/mlx-node/mlx-node/pull/24
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def attention(queries, keys, values, use_causal=True):
    seq_len, kv_len = queries.size(-2), keys.size(-2)
    mask = None
    if use_causal and seq_len > 1:
        mask = torch.ones(seq_len, kv_len, dtype=torch.bool).tril(kv_len - seq_len)
    return F.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries = torch.randn(1, 2, 3, 4)  # a chunk of 3 tokens
    keys = torch.randn(1, 2, 7, 4)  # 4 cached + the chunk
    values = torch.randn(1, 2, 7, 4)
    return attention(queries, keys, values)
