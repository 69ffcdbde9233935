"""AM804: a mask tiled for the heads in another order than the scores' rows.

Heads split with ``view(B, L, H, d).transpose(1, 2)`` and merged with ``reshape(B * H, L, d)``
give scores whose row ``b·H + h`` is item b, head h: ``repeat_interleave(H, dim=0)`` tiles a
``[B, L, S]`` mask so, ``repeat(H, 1, 1)`` tiles it ``h·B + b``.  Split with
``permute(2, 0, 1, 3)`` the rows are ``h·B + b`` and the reverse holds.  Where the split or
the merge is not shown, nothing is said.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_LAYER = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, dim // num_heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def split(self, x, bsz):
        x = x.view(bsz, -1, self.num_heads, self.head_dim).{move}
        return x.reshape({merged}, -1, self.head_dim)

    def forward(self, x, ids, pad_id):
        bsz, n = ids.shape
        q, k = self.split(self.q(x), bsz), self.split(self.k(x), bsz)
        padding = (ids == pad_id)[:, None, :].expand(bsz, n, n)
        tiled = padding.{tile}
        scores = torch.bmm(q, k.transpose(1, 2)) / self.head_dim**0.5
        {mask}
        return torch.softmax(scores, dim=-1)
"""

_BATCH = "transpose(1, 2)"
_HEAD = "permute(2, 0, 1, 3)"
_REPEAT = "repeat(self.num_heads, 1, 1)"
_INTERLEAVE = "repeat_interleave(self.num_heads, dim=0)"
_FILL = "scores = scores.masked_fill(tiled, float('-inf'))"


def codes(move: str, tile: str, mask: str = _FILL, merged: str = "bsz * self.num_heads") -> list:
    source = _LAYER.format(move=move, tile=tile, mask=mask, merged=merged)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("move", "tile", "expected"),
    [
        (_BATCH, _REPEAT, [("AM804", 20)]),
        (_BATCH, _INTERLEAVE, []),
        (_HEAD, _INTERLEAVE, [("AM804", 20)]),
        (_HEAD, _REPEAT, []),
        ("permute(0, 2, 1, 3)", _REPEAT, [("AM804", 20)]),
        ("contiguous()", _REPEAT, []),  # no transpose: the merge is AM803's matter, not this
    ],
)
def test_the_tiling_against_the_split(move: str, tile: str, expected: list) -> None:
    assert codes(move, tile) == expected


@pytest.mark.parametrize(
    "mask",
    [
        "scores = scores + tiled.float() * -1e9",
        "scores = torch.where(tiled, float('-inf'), scores)",
        "scores = scores.masked_fill(tiled, float('-inf'))",
    ],
)
def test_every_way_the_mask_reaches_the_scores(mask: str) -> None:
    assert codes(_BATCH, _REPEAT, mask) == [("AM804", 20)]


@pytest.mark.parametrize(
    ("merged", "expected"),
    [
        ("self.num_heads * bsz", [("AM804", 20)]),  # the same product
        ("-1", [("AM804", 20)]),
        ("bsz * n * self.num_heads", []),  # not the two axes the split made
        ("n * self.num_heads", []),
    ],
)
def test_the_merge(merged: str, expected: list) -> None:
    assert codes(_BATCH, _REPEAT, merged=merged) == expected


def test_a_mask_tiled_by_another_count() -> None:
    """repeat(2, 1, 1) of no head count: not tiled for the heads (as AM802 reads it)."""
    assert codes(_BATCH, "repeat_interleave(2, dim=0)") == []
