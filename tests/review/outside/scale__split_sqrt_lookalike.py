"""QKVAttention scales q and k each by 1 / sqrt(sqrt(ch)) before the einsum.

Correct: the two factors multiply in the dot product, so the logits are divided by sqrt(ch), the
per-head channel count, exactly as softmax(q k^T / sqrt(ch)); scaling both sides only keeps the
intermediate values smaller in float16.
"""

import math

import torch
from torch import nn


class QKVAttention(nn.Module):
    """A module which performs QKV attention and splits in a different order."""

    def __init__(self, n_heads):
        super().__init__()
        self.n_heads = n_heads

    def forward(self, qkv):
        """qkv: an [N x (3 * H * C) x T] tensor of Qs, Ks, and Vs."""
        bs, width, length = qkv.shape
        assert width % (3 * self.n_heads) == 0
        ch = width // (3 * self.n_heads)
        q, k, v = qkv.chunk(3, dim=1)
        scale = 1 / math.sqrt(math.sqrt(ch))
        weight = torch.einsum(
            "bct,bcs->bts",
            (q * scale).view(bs * self.n_heads, ch, length),
            (k * scale).view(bs * self.n_heads, ch, length),
        )  # More stable with f16 than dividing afterwards
        weight = torch.softmax(weight.float(), dim=-1).type(weight.dtype)
        a = torch.einsum("bts,bcs->bct", weight, v.reshape(bs * self.n_heads, ch, length))
        return a.reshape(bs, -1, length)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = QKVAttention(n_heads=2)
    qkv = torch.randn(2, 3 * 2 * 8, 5)
    return attention(qkv)
