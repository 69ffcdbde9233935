"""A scale applied to the queries (or keys) before ``q @ kᵀ`` is checked where they meet.

``q = self.q_proj(x) * self.scaling`` then the head split (``view``, ``transpose``): the
scores are scaled, by that scale, so a scale from the model width is AM502 there as it is on
the scores, and ``q * √d`` AM503.  The root of a scale split over both sides,
``q * math.sqrt(scale)`` and ``k * math.sqrt(scale)`` (onnxscript's SDPA), is no √d.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_LAYER = """import math
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = {scale}
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x):
        B, L, _ = x.shape
        q = {query}
        q = q.view(B, L, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.num_heads, self.head_dim).transpose(1, 2)
        return (q @ k.transpose(-2, -1)).softmax(dim=-1)
"""


def codes(scale: str, query: str) -> list[tuple[str, int]]:
    source = _LAYER.format(scale=scale, query=query)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("scale", "query", "expected"),
    [
        ("embed_dim ** -0.5", "self.q_proj(x) * self.scaling", [("AM502", 11)]),
        ("embed_dim ** -0.5", "self.scaling * self.q_proj(x)", [("AM502", 11)]),
        ("math.sqrt(embed_dim)", "self.q_proj(x) / self.scaling", [("AM502", 11)]),
        ("self.head_dim ** -0.5", "self.q_proj(x) * self.scaling", []),
        ("math.sqrt(self.head_dim)", "self.q_proj(x) * self.scaling", [("AM503", 17)]),
        ("math.sqrt(self.head_dim)", "self.q_proj(x) / self.scaling", []),
        # scaled after the split: as before
        ("embed_dim ** -0.5", "self.q_proj(x)", []),
    ],
)
def test_a_query_scaled_at_its_projection(
    scale: str, query: str, expected: list[tuple[str, int]]
) -> None:
    assert codes(scale, query) == expected


_SPLIT = """import math
import torch


def attend(query, key, value, scale):
    query_scaled = query * {q}
    key_transposed_scaled = key.transpose(-2, -1) * {k}
    return torch.softmax(query_scaled @ key_transposed_scaled, dim=-1) @ value
"""


@pytest.mark.parametrize(
    ("q", "k"),
    [
        ("math.sqrt(scale)", "math.sqrt(scale)"),
        ("(1 / query.shape[-1] ** 0.5) ** 0.5", "(1 / query.shape[-1] ** 0.5) ** 0.5"),
    ],
)
def test_the_root_of_a_scale_on_both_sides(q: str, k: str) -> None:
    source = _SPLIT.format(q=q, k=k)
    assert check_source(source, "case.py") == []


def test_a_root_of_the_head_size_multiplied_in() -> None:
    source = _SPLIT.format(q="1.0", k="math.sqrt(query.size(-1))")
    assert [finding.code for finding in check_source(source, "case.py")] == ["AM503"]
