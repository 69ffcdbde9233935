"""Gemma4AudioAttention inverts its mask with logical_not(), which assumes a boolean keep-mask, but under eager attention it is given an additive float mask (0.0 = allowed, finfo.min = masked): every allowed position is filled with the invalid-logit value and the masked ones stay attendable.

Report: https://github.com/huggingface/transformers/issues/48818
Class: mask_dtype_inversion
Decidable: values
"""

import torch
from torch import nn


class Gemma4AudioConfig:
    hidden_size = 8
    num_attention_heads = 2
    attention_logit_cap = 50.0
    attention_invalid_logits_value = -1.0e9


def create_bidirectional_mask(attention_mask, dtype, attn_implementation="eager"):
    keep = attention_mask[:, None, None, :].bool()
    if attn_implementation == "sdpa":
        return keep
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, torch.finfo(dtype).min)


class Gemma4AudioAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)

    def forward(self, hidden_states, attention_mask):
        b, t, _ = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(b, t, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        attn_weights = torch.matmul(q, k.transpose(-1, -2)) * self.head_dim**-0.5
        cap = self.config.attention_logit_cap
        attn_weights = torch.tanh(attn_weights / cap) * cap
        attn_weights = attn_weights.masked_fill(
            attention_mask.logical_not(), self.config.attention_invalid_logits_value  # bug
        )
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32)  # bug
        return torch.matmul(attn_weights, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    config = Gemma4AudioConfig()
    attn = Gemma4AudioAttention(config)
    hidden_states = torch.randn(2, 4, 8)
    audio_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    attention_mask = create_bidirectional_mask(audio_mask, hidden_states.dtype, attn_implementation="eager")
    return attn(hidden_states, attention_mask)
