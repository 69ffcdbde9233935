"""A 0/1 float attn_mask (1 = masked) is given to _ScaledDotProductAttention, which masks only Boolean masks and adds float ones.

Report: https://github.com/timeseriesAI/tsai/issues/171
Class: bool_to_float
"""

import torch
import torch.nn.functional as F
from torch import nn


class _ScaledDotProductAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        head_dim = d_model // n_heads
        self.scale = head_dim**-0.5

    def forward(self, q, k, v, attn_mask=None):
        # q: (bs, n_heads, q_len, d_k); k: (bs, n_heads, d_k, seq_len); v: (bs, n_heads, seq_len, d_v)
        attn_scores = torch.matmul(q, k) * self.scale
        if attn_mask is not None:  # attn_mask with shape (q_len, seq_len)
            if attn_mask.dtype == torch.bool:
                attn_scores.masked_fill_(attn_mask, float("-inf"))
            else:
                attn_scores += attn_mask
        attn_weights = F.softmax(attn_scores, dim=-1)
        return torch.matmul(attn_weights, v), attn_weights


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, v = torch.randn(2, 1, 2, 4, 8).unbind(0)
    k = torch.randn(1, 2, 8, 4)
    attn_mask = torch.triu(torch.ones(4, 4), diagonal=1)  # 1 = the future, masked  # bug
    attention = _ScaledDotProductAttention(d_model=16, n_heads=2)
    return attention(q, k, v, attn_mask=attn_mask)[1]  # bug
