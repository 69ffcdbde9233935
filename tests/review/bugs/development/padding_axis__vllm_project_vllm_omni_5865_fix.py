"""In cross-attention the text key-padding mask is applied to the keys, as the SDPA backend does: every image query attends only to real text tokens.

Report: https://github.com/vllm-project/vllm-omni/issues/5865
Class: padding_axis
"""

import torch
import torch.nn.functional as F


def cross_attention(query, key, value, attention_mask):
    key_mask = attention_mask[:, None, None, :]  # (batch, 1, 1, key_len)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=key_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 2, 6, 4)  # image tokens
    key = torch.randn(2, 2, 8, 4)  # text tokens, padded
    value = torch.randn(2, 2, 8, 4)
    attention_mask = torch.tensor([[True] * 5 + [False] * 3, [True] * 7 + [False]])
    return cross_attention(query, key, value, attention_mask)
