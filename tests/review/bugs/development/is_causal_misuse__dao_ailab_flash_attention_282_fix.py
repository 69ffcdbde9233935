"""The prompt pass is causal and the single-token decoding steps are not, as the report describes for text-generation-inference.

Report: https://github.com/Dao-AILab/flash-attention/issues/282
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F


def attention(query, key, value, prefill):
    causal = prefill
    return F.scaled_dot_product_attention(query, key, value, is_causal=causal)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    key = torch.randn(1, 2, 5, 4)  # (B, H, S, D)
    value = torch.randn(1, 2, 5, 4)
    attention(key, key, value, prefill=True)
    query = torch.randn(1, 2, 1, 4)  # single-token decode
    return attention(query, key, value, prefill=False)
