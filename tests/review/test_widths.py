"""A scale from the model width, known by what the code does with it rather than its name.

The width is what a projection split into heads reads: the first argument of an ``nn.Linear``
or ``nn.Conv1d`` built to a multiple of it, and the last axis of the tensor it reads.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_CLASS = """import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, n_feat, n_head):
        super().__init__()
        self.h = n_head
        self.d_k = n_feat // n_head
        self.n_feat = n_feat
        self.linear_q = nn.Linear(n_feat, {out})
        self.linear_k = nn.Linear(n_feat, {out})

    def forward(self, x):
        n = x.size(0)
        q = self.linear_q(x).view(n, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(x).view(n, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt({scale})
        return torch.softmax(scores, dim=-1)
"""


def codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(source, "case.py")]


@pytest.mark.parametrize("scale", ["self.n_feat", "x.size(-1)", "x.shape[-1]"])
def test_the_width_a_projection_reads_is_no_head_size(scale: str) -> None:
    source = _CLASS.format(out="n_feat", scale=scale)
    assert codes(source) == [("AM502", 20)]


@pytest.mark.parametrize("scale", ["self.d_k", "q.size(-1)", "q.shape[-1]"])
def test_the_head_size_is_right(scale: str) -> None:
    assert codes(_CLASS.format(out="n_feat", scale=scale)) == []


def test_a_width_that_each_head_has_whole_is_a_head_size() -> None:
    # nn.Linear(n_feat, n_feat * n_head): every head has n_feat features
    source = _CLASS.format(out="n_feat * n_head", scale="self.n_feat").replace(
        "view(n, -1, self.h, self.d_k)", "view(n, -1, self.h, self.n_feat)"
    )
    assert codes(source) == []


def test_a_single_head_scaled_by_its_width_is_right() -> None:
    source = """import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.channels = channels
        self.q = nn.Conv1d(channels, channels, 1)
        self.k = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        w = torch.einsum("bct,bcs->bts", self.q(x), self.k(x)) / math.sqrt(self.channels)
        return w.softmax(-1)
"""
    assert codes(source) == []
