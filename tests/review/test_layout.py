"""Batch first or sequence first, as the code shows it, through what keeps the layout.

An ``nn.MultiheadAttention`` built without ``batch_first=True`` reads ``[T, B, E]``.  A tensor
the code shows to be ``[B, T, E]`` (an embedding of a tokenizer's ids, a feature map flattened
and transposed) stays so through a norm, dropout, an activation, a projection, added positions
and a copy; a transpose of its first two axes makes it sequence first.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_EMBEDDED = """import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(0.1)
        self.pos = nn.Parameter(torch.zeros(1, 512, dim))
        self.attn = nn.MultiheadAttention(dim, 4{flag})

    def forward(self, batch):
        x = self.embed(batch["input_ids"])
        {step}
        out, _ = self.attn(x, x, x)
        return out
"""

_FEATURE_MAP = """from torch import nn


class Neck(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attn = nn.MultiheadAttention(c, 4{flag})

    def forward(self, f):
        t = {tokens}
        out, _ = self.attn(t, t, t)
        return out
"""


def codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "step",
    [
        "x = self.norm(x)",
        "x = self.drop(self.proj(x))",
        "x = x + self.pos[:, : x.size(1)]",
        "x = self.norm(x) * 2.0",
        "x = x.contiguous()",
    ],
)
def test_a_batch_first_input_stays_batch_first(step: str) -> None:
    assert codes(_EMBEDDED.format(flag="", step=step)) == [("AM801", 18)]
    assert codes(_EMBEDDED.format(flag=", batch_first=True", step=step)) == []


def test_a_transpose_makes_it_sequence_first() -> None:
    assert codes(_EMBEDDED.format(flag="", step="x = x.transpose(0, 1)")) == []


@pytest.mark.parametrize(
    "tokens",
    [
        "f.flatten(2).transpose(1, 2)",
        "f.flatten(2).permute(0, 2, 1)",
        "f.flatten(2).transpose(-1, -2)",
    ],
)
def test_a_feature_map_flattened_and_transposed_is_batch_first(tokens: str) -> None:
    assert codes(_FEATURE_MAP.format(flag="", tokens=tokens)) == [("AM801", 11)]
    assert codes(_FEATURE_MAP.format(flag=", batch_first=True", tokens=tokens)) == []


@pytest.mark.parametrize("tokens", ["f.flatten(2).permute(2, 0, 1)", "f.flatten(1)", "f"])
def test_sequence_first_or_unknown_layouts_are_silent(tokens: str) -> None:
    assert codes(_FEATURE_MAP.format(flag="", tokens=tokens)) == []
