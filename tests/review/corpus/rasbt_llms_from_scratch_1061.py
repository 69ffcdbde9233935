"""A causal mask for SDPA built as MultiheadAttention wants it (True = the future).

Written from rasbt/LLMs-from-scratch#1061: ``torch.triu(...).bool()`` passed as
``attn_mask`` to ``F.scaled_dot_product_attention``, which reads True as may attend.
"""

import torch
from torch import nn


class MHAPyTorchSDPAWithoutFlash(nn.Module):
    def __init__(self, d_out, num_heads, context_length):
        super().__init__()
        self.num_heads = num_heads
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool()
        )

    def forward(self, queries, keys, values):
        num_tokens = queries.shape[-2]
        attn_mask = self.mask[:num_tokens, :num_tokens]
        return nn.functional.scaled_dot_product_attention(
            queries,
            keys,
            values,
            attn_mask=attn_mask,  # expect: AM101
        )
