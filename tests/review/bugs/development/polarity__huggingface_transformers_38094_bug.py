"""Llama4's SDPA path converts the float causal mask (0 = attend, finfo.min = masked) with .bool(), which is True exactly where masked.

Report: https://github.com/huggingface/transformers/pull/38094
Class: polarity
"""

import torch
import torch.nn.functional as F


def causal_float_mask(seq_len, dtype):
    mask = torch.full((seq_len, seq_len), torch.finfo(dtype).min, dtype=dtype)
    return torch.triu(mask, diagonal=1)[None, None]  # 0 on and below the diagonal


def sdpa_attention_forward(query, key, value, attention_mask):
    if attention_mask is not None:
        attention_mask = attention_mask.bool()  # bug
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    return sdpa_attention_forward(query, key, value, causal_float_mask(4, torch.float32))
