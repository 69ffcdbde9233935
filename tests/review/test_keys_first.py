"""Scores written keys first, ``keys @ queries.transpose(1, 2)``, are not read as ``q @ kᵀ``.

Their key axis is dim 1 of ``[B, S, L]``: ``softmax(dim=1)`` is right there and ``dim=-1``
wrong, the reverse of ``q @ kᵀ``.  Named so on both sides, the product gives no finding about
its axes (nothing is guessed); ``q @ k.transpose(1, 2)`` stays what it was.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

_POOL = """import math
import torch


def attention_pool(queries, keys, values):
    scores = {product} / math.sqrt(queries.size(-1))
    weights = torch.softmax(scores, dim=1)
    return torch.bmm(weights.transpose(1, 2), values)
"""


@pytest.mark.parametrize(
    "product",
    [
        "torch.bmm(keys, queries.transpose(1, 2))",
        "keys @ queries.transpose(1, 2)",
        "keys.matmul(queries.permute(0, 2, 1))",
    ],
)
def test_keys_first_give_no_axis_finding(product: str) -> None:
    assert check_source(_POOL.format(product=product), "case.py") == []


def test_queries_first_still_read() -> None:
    source = _POOL.format(product="torch.bmm(queries, keys.transpose(1, 2))")
    assert [(f.line, f.code) for f in check_source(source, "case.py")] == [(7, "AM402")]


def test_the_claim_on_torch() -> None:
    """Keys first, dim=1 is each query's distribution over the keys."""
    torch.manual_seed(0)
    queries, keys = torch.randn(2, 1, 3, 4)
    by_keys = torch.softmax(keys @ queries.transpose(1, 2), dim=1)  # [B, S, L]
    by_queries = torch.softmax(queries @ keys.transpose(1, 2), dim=-1)  # [B, L, S]
    assert by_keys.transpose(1, 2).allclose(by_queries)
