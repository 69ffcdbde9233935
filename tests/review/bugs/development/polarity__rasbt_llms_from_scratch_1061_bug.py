"""MHAPyTorchSDPAWithoutFlash passes its triu(...).bool() buffer (True = the future) as SDPA's attn_mask, which reads True as may attend; both branches of the if.

Report: https://github.com/rasbt/LLMs-from-scratch/issues/1061
Class: polarity
"""

import torch
from torch import nn


class MHAPyTorchSDPAWithoutFlash(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "embed_dim is indivisible by num_heads"
        self.num_heads = num_heads
        self.context_length = context_length
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = dropout
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool()
        )

    def forward(self, x):
        batch_size, num_tokens, embed_dim = x.shape
        qkv = self.qkv(x)  # (b, num_tokens, 3 * d_out)
        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)  # (3, b, num_heads, num_tokens, head_dim)
        queries, keys, values = qkv
        use_dropout = 0.0 if not self.training else self.dropout
        # Ensure attn_mask is compatible with expected shape and `batch_first=True`
        if self.context_length >= num_tokens:
            attn_mask = self.mask[:num_tokens, :num_tokens]  # bug
        else:
            attn_mask = self.mask[: self.context_length, : self.context_length]  # bug
        context_vec = nn.functional.scaled_dot_product_attention(
            queries,
            keys,
            values,
            attn_mask=attn_mask,  # bug
            dropout_p=use_dropout,
            is_causal=False,
        )
        context_vec = (
            context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, self.d_out)
        )
        return self.proj(context_vec)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MHAPyTorchSDPAWithoutFlash(d_in=8, d_out=8, num_heads=2, context_length=6)
    return mha(torch.randn(2, 4, 8))
