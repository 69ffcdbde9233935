"""The softmax of the scores is taken over the last dimension, the keys, as the maintainer agreed.

Report: https://github.com/nerminnuraydogan/vision-transformer/issues/1
Class: softmax_axis
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    def __init__(self, embed_dim):
        super().__init__()
        self.query = nn.Linear(embed_dim, embed_dim)
        self.key = nn.Linear(embed_dim, embed_dim)
        self.value = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        attention_scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
        attention_weights = F.softmax(attention_scores, dim=-1)
        return torch.matmul(attention_weights, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = SelfAttention(8).eval()
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        return attn(x)
