"""The divisor is sqrt(feats // head), the per-head dimension d_k, as the pull request has it.

Report: https://github.com/omihub777/ViT-CIFAR/pull/11
Class: scale
"""

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, feats, head=8):
        super().__init__()
        self.head = head
        self.feats = feats
        self.sqrt_d = (self.feats // self.head) ** 0.5
        self.q = nn.Linear(feats, feats)
        self.k = nn.Linear(feats, feats)
        self.v = nn.Linear(feats, feats)
        self.o = nn.Linear(feats, feats)

    def forward(self, x):
        b, n, f = x.size()
        q = self.q(x).view(b, n, self.head, self.feats // self.head).transpose(1, 2)
        k = self.k(x).view(b, n, self.head, self.feats // self.head).transpose(1, 2)
        v = self.v(x).view(b, n, self.head, self.feats // self.head).transpose(1, 2)
        score = F.softmax(torch.einsum("bhif, bhjf->bhij", q, k) / self.sqrt_d, dim=-1)  # (b,h,n,n)
        attn = torch.einsum("bhij, bhjf->bihf", score, v)  # (b,n,h,f//h)
        return self.o(attn.flatten(2))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MultiHeadSelfAttention(feats=64, head=8)
    return attention(torch.randn(2, 5, 64) * 3)
