"""EVA's attention takes the softmax first and then fills the masked positions of the probabilities with -inf.

Report: https://github.com/huggingface/pytorch-image-models/pull/2236
Class: mask_after_softmax
"""

import torch
from torch import nn


class EvaAttention(nn.Module):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, attn_mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)  # (B, num_heads, N, head_dim)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)  # (B, num_heads, N, N)
        attn = attn.softmax(dim=-1)  # bug
        if attn_mask is not None:
            attn_mask = attn_mask.to(torch.bool)
            attn = attn.masked_fill(~attn_mask[:, None, None, :], float("-inf"))  # bug
        x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = EvaAttention(dim=8)
    attn_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # 1 = real token
    return attention(torch.randn(2, 4, 8), attn_mask)
