"""The causal mask is used only when ``seq_len == kv_len``: a multi-token chunk on a warm cache gets no mask and its tokens attend future positions inside the chunk.

Report: https://github.com/mlx-node/mlx-node/pull/24
Class: causal_alignment
"""

import torch
import torch.nn.functional as F


def attention(queries, keys, values, use_causal=True):
    seq_len, kv_len = queries.size(-2), keys.size(-2)
    is_causal = use_causal and seq_len > 1 and seq_len == kv_len  # bug
    return F.scaled_dot_product_attention(queries, keys, values, is_causal=is_causal)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    queries = torch.randn(1, 2, 3, 4)  # a chunk of 3 tokens
    keys = torch.randn(1, 2, 7, 4)  # 4 cached + the chunk
    values = torch.randn(1, 2, 7, 4)
    return attention(queries, keys, values)
