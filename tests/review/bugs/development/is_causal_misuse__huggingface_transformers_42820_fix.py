"""The encoder's self-attention sets ``is_causal = False``, so a skipped (None) bidirectional mask means full attention.

Report: https://github.com/huggingface/transformers/pull/42820
Class: is_causal_misuse
"""

import torch
from torch import nn


def sdpa_attention_forward(module, query, key, value, attention_mask, scaling=None):
    is_causal = query.shape[2] > 1 and attention_mask is None and getattr(module, "is_causal", True)
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, scale=scaling, is_causal=is_causal
    )
    return attn_output.transpose(1, 2).contiguous()


class EncoderSelfAttention(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scaling = head_dim**-0.5
        self.is_causal = False

    def forward(self, query, key, value, attention_mask=None):
        return sdpa_attention_forward(self, query, key, value, attention_mask, self.scaling)


def create_bidirectional_mask(attention_mask):
    # an all-ones padding mask is skipped: SDPA needs no mask for full attention
    if attention_mask is None or bool(attention_mask.all()):
        return None
    return attention_mask[:, None, None, :].bool()


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)  # (batch, heads, seq, head_dim)
    attention_mask = create_bidirectional_mask(torch.ones(1, 4, dtype=torch.long))
    return EncoderSelfAttention(head_dim=8)(query, key, value, attention_mask)
