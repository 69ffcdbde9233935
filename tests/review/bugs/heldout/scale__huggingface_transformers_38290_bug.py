"""OPTAttention scales the query by ``self.scaling`` and then calls the attention interface without ``scaling``: SDPA applies its default 1/sqrt(head_dim) a second time.

Report: https://github.com/huggingface/transformers/pull/38290
Class: scale
"""

import torch
from torch import nn


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None):
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=dropout,
        scale=scaling,
        is_causal=False,
    )
    return attn_output.transpose(1, 2).contiguous(), None


class OPTAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, hidden_states, attention_mask=None):
        bsz, tgt_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states) * self.scaling
        query_states = query_states.view(bsz, -1, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = (
            self.k_proj(hidden_states).view(bsz, -1, self.num_heads, self.head_dim).transpose(1, 2)
        )
        value_states = (
            self.v_proj(hidden_states).view(bsz, -1, self.num_heads, self.head_dim).transpose(1, 2)
        )
        attn_output, attn_weights = sdpa_attention_forward(  # bug
            self, query_states, key_states, value_states, attention_mask, dropout=0.0
        )
        attn_output = attn_output.reshape(bsz, tgt_len, -1).contiguous()
        return self.out_proj(attn_output)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = OPTAttention(embed_dim=16, num_heads=2)
    return attention(torch.randn(2, 5, 16) * 3)
