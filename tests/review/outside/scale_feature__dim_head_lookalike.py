"""An attention whose inner width heads * dim_head differs from the model width dim, scaled by dim_head ** -0.5.

Correct: the scores are dot products of dim_head-sized queries and keys, so dim_head ** -0.5 is the
scaled-dot-product factor, even though dim (the model width) is a different number.
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim=32, heads=4, dim_head=16):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head**-0.5
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Linear(inner_dim, dim)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        attn = dots.softmax(dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, -1)
        return self.to_out(out)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = Attention().eval()
    with torch.no_grad():
        return attn(torch.randn(2, 5, 32))
