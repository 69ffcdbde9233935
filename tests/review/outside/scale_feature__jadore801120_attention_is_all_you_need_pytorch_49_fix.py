"""MultiHeadAttention builds its ScaledDotProductAttention with d_k, so the per-head scores of width d_k are divided by sqrt(d_k).

Report: https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/49
Class: scale_feature
"""

import math

import torch
import torch.nn as nn


class ScaledDotProductAttention(nn.Module):
    """Scaled Dot-Product Attention"""

    def __init__(self, d_k, attn_dropout=0.1):
        super(ScaledDotProductAttention, self).__init__()
        self.temper = math.pow(d_k, 0.5)
        self.dropout = nn.Dropout(attn_dropout)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v):
        attn = torch.bmm(q, k.transpose(1, 2)) / self.temper
        attn = self.softmax(attn)
        attn = self.dropout(attn)
        output = torch.bmm(attn, v)
        return output, attn


class MultiHeadAttention(nn.Module):
    """Multi-Head Attention module"""

    def __init__(self, n_head, d_model, d_k, d_v, dropout=0.1):
        super(MultiHeadAttention, self).__init__()
        self.n_head = n_head
        self.d_k = d_k
        self.d_v = d_v
        self.w_qs = nn.Parameter(torch.randn(n_head, d_model, d_k) * d_model**-0.5)
        self.w_ks = nn.Parameter(torch.randn(n_head, d_model, d_k) * d_model**-0.5)
        self.w_vs = nn.Parameter(torch.randn(n_head, d_model, d_v) * d_model**-0.5)
        self.attention = ScaledDotProductAttention(d_k)
        self.proj = nn.Linear(n_head * d_v, d_model)

    def forward(self, q, k, v):
        d_k, d_v = self.d_k, self.d_v
        n_head = self.n_head
        mb_size, len_q, d_model = q.size()
        mb_size, len_k, d_model = k.size()
        mb_size, len_v, d_model = v.size()

        # treat as a (n_head) size batch
        q_s = q.repeat(n_head, 1, 1).view(n_head, -1, d_model)  # n_head x (mb_size*len_q) x d_model
        k_s = k.repeat(n_head, 1, 1).view(n_head, -1, d_model)
        v_s = v.repeat(n_head, 1, 1).view(n_head, -1, d_model)

        # treat the result as a (n_head * mb_size) size batch
        q_s = torch.bmm(q_s, self.w_qs).view(-1, len_q, d_k)  # (n_head*mb_size) x len_q x d_k
        k_s = torch.bmm(k_s, self.w_ks).view(-1, len_k, d_k)
        v_s = torch.bmm(v_s, self.w_vs).view(-1, len_v, d_v)

        outputs, attns = self.attention(q_s, k_s, v_s)
        outputs = torch.cat(torch.split(outputs, mb_size, dim=0), dim=-1)
        return self.proj(outputs)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    mha = MultiHeadAttention(n_head=4, d_model=32, d_k=8, d_v=8, dropout=0.0).eval()
    x = torch.randn(2, 5, 32) * 3.0
    with torch.no_grad():
        return mha(x, x, x)
