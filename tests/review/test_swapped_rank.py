"""A key transposed with positive axes shows the scores' rank, so a softmax's dim can be judged.

``q @ k.transpose(2, 3)`` and ``torch.matmul(q, k.permute(0, 1, 3, 2))`` are 4-D scores
``[B, H, L, S]``: ``softmax(dim=2)`` runs over the queries (AM402); so are the scores of keys
permuted with every axis named once (``k.permute(0, 2, 3, 1)``: four axes).  ``transpose(-2,
-1)``, a swap of axes that are not the last two of any rank (``transpose(0, 2)``), or a
permutation with a negative axis show no rank, and a softmax of unknown rank at ``dim=1`` or
``dim=2`` is left alone (``[L, S]`` scores read dim 1 as their keys).
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source


@pytest.mark.parametrize(
    ("scores", "dim", "expected"),
    [
        ("q @ k.transpose(2, 3)", 2, ["AM402"]),
        ("q @ k.transpose(3, 2)", 2, ["AM402"]),
        ("torch.matmul(q, k.transpose(2, 3))", 2, ["AM402"]),
        ("q.matmul(k.transpose(2, 3))", 2, ["AM402"]),
        ("torch.matmul(q, k.permute(0, 1, 3, 2))", 2, ["AM402"]),
        ("q @ k.transpose(1, 2)", 1, ["AM402"]),  # 3-D: dim 1 is the queries
        ("q @ k.transpose(2, 3)", 3, []),
        ("q @ k.transpose(2, 3)", -1, []),
        ("q @ k.transpose(1, 2)", 2, []),
        ("q @ k.transpose(-2, -1)", 1, []),  # rank unknown
        ("q @ k.transpose(0, 2)", 1, []),
        # every axis named: [B, S, H, d] keys as [B, H, d, S], 4-D scores
        ("torch.matmul(q, k.permute(0, 2, 3, 1))", 2, ["AM402"]),
        ("torch.matmul(q, k.permute(0, 2, 3, 1))", 3, []),
        ("torch.matmul(q, k.permute(0, 2, -1, 1))", 2, []),  # a negative axis: no rank
    ],
)
def test_the_rank_a_transpose_shows(scores: str, dim: int, expected: list[str]) -> None:
    source = (
        "import torch\n\n\n"
        f"def attend(q, k, v):\n    s = {scores} / q.size(-1) ** 0.5\n"
        f"    return s.softmax(dim={dim}) @ v\n"
    )
    assert [finding.code for finding in check_source(source, "case.py")] == expected
