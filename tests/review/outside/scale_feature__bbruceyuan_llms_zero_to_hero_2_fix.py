"""The scores are divided by sqrt(head_dim), the size of each head's keys.

Report: https://github.com/bbruceyuan/LLMs-Zero-to-Hero/pull/2
Class: scale_feature
"""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, hidden_dim, head_num, attention_dropout=0.0):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.head_num = head_num
        self.head_dim = hidden_dim // head_num
        self.q_proj = nn.Linear(hidden_dim, hidden_dim)
        self.k_proj = nn.Linear(hidden_dim, hidden_dim)
        self.v_proj = nn.Linear(hidden_dim, hidden_dim)
        self.o_proj = nn.Linear(hidden_dim, hidden_dim)
        self.attention_dropout = nn.Dropout(attention_dropout)

    def forward(self, X, attention_mask=None):
        batch, seq_len, _ = X.size()
        q_state = self.q_proj(X).view(batch, seq_len, self.head_num, self.head_dim).transpose(1, 2)
        k_state = self.k_proj(X).view(batch, seq_len, self.head_num, self.head_dim).transpose(1, 2)
        v_state = self.v_proj(X).view(batch, seq_len, self.head_num, self.head_dim).transpose(1, 2)
        attention_weight = torch.matmul(q_state, k_state.transpose(-1, -2)) / math.sqrt(
            self.head_dim
        )
        if attention_mask is not None:
            attention_weight = attention_weight.masked_fill(attention_mask == 0, float("-inf"))
        attention_weight = torch.softmax(attention_weight, dim=-1)
        attention_weight = self.attention_dropout(attention_weight)
        output_mid = torch.matmul(attention_weight, v_state)
        output_mid = output_mid.transpose(1, 2).contiguous().view(batch, seq_len, -1)
        return self.o_proj(output_mid)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention_mask = (
        torch.tensor([[1, 1], [1, 0], [1, 1]]).unsqueeze(1).unsqueeze(2).expand(3, 8, 2, 2)
    )
    x = torch.rand(3, 2, 128)
    net = MultiHeadAttention(128, 8).eval()
    with torch.no_grad():
        return net(x, attention_mask)
