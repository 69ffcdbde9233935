"""The report's suggestion: blend the causal mask in with -1e10, far below any score, so the future keys get no weight.

Report: https://github.com/huggingface/transformers/issues/3181
Class: weak_fill
"""

import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, n_ctx, scale=True):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(n_ctx, n_ctx)).view(1, 1, n_ctx, n_ctx))
        self.scale = scale

    def _attn(self, q, k, v):
        w = torch.matmul(q, k)  # k is already transposed: (batch, head, head_features, seq)
        if self.scale:
            w = w / math.sqrt(v.size(-1))
        nd, ns = w.size(-2), w.size(-1)
        b = self.bias[:, :, ns - nd : ns, :ns]
        w = w * b - 1e10 * (1 - b)
        w = nn.Softmax(dim=-1)(w)
        return torch.matmul(w, v), w


def run() -> torch.Tensor:
    # raw scores that drift below -1e4, as the report saw after long training
    scores = torch.tensor(
        [
            [-15000.0, 0.0, 0.0],
            [3.0, 1.0, 0.0],
            [-12000.0, -11000.0, -10500.0],
        ]
    )
    q = (scores * math.sqrt(3))[None, None]  # (1, 1, 3, 3)
    k = torch.eye(3)[None, None]
    v = torch.arange(9.0).view(1, 1, 3, 3)
    return Attention(n_ctx=3)._attn(q, k, v)[1]
