"""The scores are scaled by the key size k.size(-1) ** -0.5 (head_size), as the report proposes.

Report: https://github.com/Graylab/DL4Proteins-notebooks/issues/12
Class: scale_feature
"""

import torch
from torch import nn
from torch.nn import functional as F


class Head(nn.Module):
    def __init__(self, n_embd, head_size, block_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.size(-1) ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        v = self.value(x)
        return wei @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    head = Head(n_embd=64, head_size=16, block_size=8).eval()
    x = torch.randn(2, 6, 64)
    with torch.no_grad():
        return head(x)
