"""decoder_mask is (triu(ones, diagonal=1) == 0), as causal_mask in dataset.py builds it: 1 on and below the diagonal.

Report: https://github.com/hkproj/pytorch-transformer/issues/19
Class: causal_diagonal
"""

import math

import torch
from torch import nn


class MultiHeadAttentionBlock(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.d_k = d_model // h
        self.h = h
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)

    @staticmethod
    def attention(query, key, value, mask):
        d_k = query.shape[-1]
        attention_scores = (query @ key.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            attention_scores.masked_fill_(mask == 0, -1e9)
        attention_scores = attention_scores.softmax(dim=-1)
        return attention_scores @ value

    def forward(self, q, k, v, mask):
        query = self.w_q(q).view(q.shape[0], q.shape[1], self.h, self.d_k).transpose(1, 2)
        key = self.w_k(k).view(k.shape[0], k.shape[1], self.h, self.d_k).transpose(1, 2)
        value = self.w_v(v).view(v.shape[0], v.shape[1], self.h, self.d_k).transpose(1, 2)
        x = MultiHeadAttentionBlock.attention(query, key, value, mask)
        return x.transpose(1, 2).contiguous().view(x.shape[0], -1, self.h * self.d_k)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    block = MultiHeadAttentionBlock(d_model=8, h=2).eval()
    decoder_input = torch.randn(1, 4, 8)
    source_mask = torch.ones(1, 1, 1, 4, dtype=torch.int64)
    decoder_mask = (
        (torch.triu(torch.ones((1, decoder_input.size(1), decoder_input.size(1))), diagonal=1) == 0)
        .type(torch.int)
        .type_as(source_mask)
    )
    with torch.no_grad():
        return block(decoder_input, decoder_input, decoder_input, decoder_mask)
