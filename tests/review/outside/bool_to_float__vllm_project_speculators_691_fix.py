"""create_float_mask turns the boolean flex mask into a float mask (0 where attended, -inf where masked) before it reaches eager_attention_forward.

Report: https://github.com/vllm-project/speculators/pull/691
Class: bool_to_float
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import create_mask


def eager_attention_forward(module, query, key, value, attention_mask, scaling):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output, attn_weights


def causal_mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def create_float_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cpu"):
    bool_mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=device)
    float_mask = torch.zeros(bool_mask.shape, device=device)
    return float_mask.masked_fill(~bool_mask, float("-inf"))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attention_mask = create_float_mask(causal_mask_mod, 1, None, 4, 4, device="cpu")
    _, attn_weights = eager_attention_forward(None, query, key, value, attention_mask, 8**-0.5)
    return attn_weights
