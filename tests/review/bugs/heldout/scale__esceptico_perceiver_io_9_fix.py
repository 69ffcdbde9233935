"""The scores are multiplied by self.scale, as the report's fix has it.

Report: https://github.com/esceptico/perceiver-io/issues/9
Class: scale
"""

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, kv_dim, q_dim, qk_out_dim, v_out_dim, num_heads=1):
        super().__init__()
        self.num_heads = num_heads
        self.qk_head_dim = qk_out_dim // num_heads
        self.v_head_dim = v_out_dim // num_heads
        self.k = nn.Linear(kv_dim, qk_out_dim)
        self.q = nn.Linear(q_dim, qk_out_dim)
        self.v = nn.Linear(kv_dim, v_out_dim)
        self.scale = self.qk_head_dim**-0.5

    def transform_for_scores(self, x, head_dim):
        *dims, seq, hid = x.size()
        x = x.view(*dims, seq, self.num_heads, head_dim)
        return x.transpose(-3, -2)

    def forward(self, inputs_kv, inputs_q):
        keys, queries, values = self.k(inputs_kv), self.q(inputs_q), self.v(inputs_kv)
        keys = self.transform_for_scores(keys, self.qk_head_dim)
        queries = self.transform_for_scores(queries, self.qk_head_dim)
        values = self.transform_for_scores(values, self.v_head_dim)
        attention = queries @ keys.transpose(-2, -1) * self.scale  # (B, H, N, M)
        attention = attention.softmax(dim=-1)
        weighted = attention @ values  # (B, H, N, D)
        *dims, n_heads, seq, hid = weighted.size()
        return weighted.transpose(-3, -2).reshape(*dims, seq, n_heads * hid)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadAttention(kv_dim=16, q_dim=16, qk_out_dim=32, v_out_dim=32, num_heads=4)
    return attention(torch.randn(2, 6, 16), torch.randn(2, 3, 16))
