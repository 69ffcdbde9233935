"""ScaledDotProduct(causal=True) builds its deferred causal mask whether or not the caller passes an att_mask, and uses it alone when there is none.

Report: https://github.com/facebookresearch/xformers/issues/103
Class: is_causal_misuse
"""

import math
from typing import Optional

import torch
from torch import nn


def scaled_dot_product_attention(q, k, v, att_mask: Optional[torch.Tensor], dropout=None):
    q = q / math.sqrt(k.size(-1))
    att = q @ k.transpose(-2, -1)
    if att_mask is not None:
        att = att.masked_fill(~att_mask, float("-inf"))
    att = torch.softmax(att, dim=att.ndim - 1)
    if dropout is not None:
        att = dropout(att)
    return att @ v


class ScaledDotProduct(nn.Module):
    def __init__(self, dropout: float = 0.0, causal: bool = False, seq_len: Optional[int] = None):
        super().__init__()
        self.attn_drop = nn.Dropout(dropout, inplace=False)
        self.causal = causal
        self.seq_len = seq_len
        self.mask: Optional[torch.Tensor] = None
        if causal and seq_len is not None:
            self.mask = self._get_causal_mask(seq_len, seq_len)

    @staticmethod
    def _get_causal_mask(seq_len: int, to_seq_len: int) -> torch.Tensor:
        # True where attention is allowed
        return torch.tril(torch.ones(seq_len, to_seq_len), diagonal=0).bool()

    def forward(self, q, k, v, att_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        # Handle a possibly deferred causal mask handling
        if self.causal and self.mask is None:
            self.mask = self._get_causal_mask(q.shape[-2], k.shape[-2])

        # Mask-aware attention
        if self.mask is not None:
            att_mask = self.mask if att_mask is None else self.mask & att_mask

        # Self-attend: (B, nh, S, hs) x (B, nh, hs, S) -> (B, nh, S, S)
        y = scaled_dot_product_attention(q, k, v, att_mask, dropout=self.attn_drop)
        return y


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = ScaledDotProduct(dropout=0.0, causal=True).eval()
    q, k, v = torch.randn(3, 2, 5, 8).unbind(0)
    with torch.no_grad():
        return attention(q, k, v)
