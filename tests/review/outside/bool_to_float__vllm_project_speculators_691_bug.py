"""The draft model builds its mask with flex_attention.create_mask, a boolean tensor (True = attend), and hands it to eager_attention_forward, which adds it to the scores: kept keys get +1, masked keys +0, and nothing is masked.

Report: https://github.com/vllm-project/speculators/pull/691
Class: bool_to_float
Decidable: code
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import create_mask


def eager_attention_forward(module, query, key, value, attention_mask, scaling):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask  # bug
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output, attn_weights


def causal_mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attention_mask = create_mask(causal_mask_mod, 1, None, 4, 4, device="cpu")  # bug
    _, attn_weights = eager_attention_forward(None, query, key, value, attention_mask, 8**-0.5)
    return attn_weights
