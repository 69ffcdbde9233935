"""The scores' rank, read through the ways code splits its heads, so a softmax's axis is judged.

A softmax at ``dim=1`` of 4-D scores ``[B, H, L, S]`` runs over the heads (AM402); of scores
whose rank nothing shows it is left alone (``[L, S]`` scores read dim 1 as their keys).  The
rank shows through ``qkv.chunk(3, dim=-1)`` mapped to a head split (lucidrains' ViT), and
through queries split in ``forward`` and handed to a method that computes the scores.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_VIT = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64):
        super().__init__()
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.attend = nn.Softmax(dim={dim})
        self.to_qkv = nn.Linear(dim, dim_head * heads * 3, bias=False)

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: t.reshape(b, n, self.heads, -1).{move}, qkv)
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(self.attend(dots), v)
"""


@pytest.mark.parametrize(
    ("dim", "move", "expected"),
    [
        ("1", "transpose(1, 2)", [("AM402", 10)]),
        ("2", "transpose(1, 2)", [("AM402", 10)]),
        ("-1", "transpose(1, 2)", []),
        ("3", "transpose(1, 2)", []),
    ],
)
def test_a_softmax_module_over_the_scores_of_split_heads(
    dim: str, move: str, expected: list[tuple[str, int]]
) -> None:
    source = _VIT.format(dim=dim, move=move)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


_METHOD = """import math
import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads, self.d_k = num_heads, d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)

    def attend(self, Q, K):
        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)
        return F.softmax(scores, dim={dim})

    def split_heads(self, x):
        batch_size, seq_length, _ = x.size()
        return x.view(batch_size, seq_length, self.num_heads, self.d_k).transpose(1, 2)

    def forward(self, x):
        return self.attend({queries})
"""


@pytest.mark.parametrize(
    ("dim", "queries", "expected"),
    [
        ("1", "self.split_heads(self.W_q(x)), self.split_heads(self.W_k(x))", [("AM402", 16)]),
        ("-1", "self.split_heads(self.W_q(x)), self.split_heads(self.W_k(x))", []),
        ("1", "self.W_q(x), self.W_k(x)", []),  # [B, L, D]: no rank shown
    ],
)
def test_a_method_reads_the_scores_of_heads_split_by_its_caller(
    dim: str, queries: str, expected: list[tuple[str, int]]
) -> None:
    source = _METHOD.format(dim=dim, queries=queries)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected
