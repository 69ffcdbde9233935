"""The decoding step keeps the causal flag of the prompt pass; with one query and a longer cache the top-left causal mask lets it see only the first key.

Report: https://github.com/Dao-AILab/flash-attention/issues/282
Class: is_causal_misuse
"""

import torch
import torch.nn.functional as F


def attention(query, key, value, prefill):
    causal = True  # bug
    return F.scaled_dot_product_attention(query, key, value, is_causal=causal)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    key = torch.randn(1, 2, 5, 4)  # (B, H, S, D)
    value = torch.randn(1, 2, 5, 4)
    attention(key, key, value, prefill=True)
    query = torch.randn(1, 2, 1, 4)  # single-token decode
    return attention(query, key, value, prefill=False)
