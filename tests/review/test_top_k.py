"""Scores ranked with ``topk`` read their mask as a softmax does: a 0/1 mask added forbids nothing.

An indexer that keeps each query's top-k keys (transformers#48363's DSA indexer) adds the
attention mask to its scores first; a Boolean mask adds 1.0 to the allowed keys and 0.0 to the
others, so a forbidden key with a high score is still picked (AM201).  A fill that overflows
float16 waits for a softmax as before: for a ranking -inf is what the mask means.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\n"
_TRIL = "    allowed = torch.tril(torch.ones(4, 4, dtype=torch.bool))\n"


def codes(body: str) -> list[str]:
    source = _HEAD + "def keep(index_scores, k):\n" + _TRIL + body
    return [finding.code for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "ranked",
    [
        "(index_scores + allowed).topk(k, dim=-1).indices",
        "torch.topk(index_scores + allowed, k, dim=-1).indices",
        "(index_scores + allowed.float()).topk(k).indices",
    ],
)
def test_a_boolean_mask_added_before_a_ranking(ranked: str) -> None:
    assert codes(f"    return {ranked}\n") == ["AM201"]


@pytest.mark.parametrize(
    "ranked",
    [
        "index_scores.masked_fill(~allowed, float('-inf')).topk(k).indices",
        "torch.where(allowed, index_scores, float('-inf')).topk(k).indices",
        "(index_scores + allowed).sum(-1)",  # nothing reads it as attention
    ],
)
def test_a_ranking_of_masked_scores(ranked: str) -> None:
    assert codes(f"    return {ranked}\n") == []


@pytest.mark.parametrize(
    ("reader", "expected"), [("topk(k).indices", []), ("softmax(-1)", ["AM202"])]
)
def test_an_overflowing_fill_still_waits_for_a_softmax(reader: str, expected: list[str]) -> None:
    # a float16 penalty: -1e9 overflows to -inf there (a float32 one, `.float()`, would fit)
    body = f"    s = index_scores.half()\n    return (s + (~allowed).half() * -1e9).{reader}\n"
    assert codes(body) == expected


def test_a_mask_handed_to_the_indexer() -> None:
    source = (
        _HEAD + "def indexer_topk(index_scores, attention_mask, k):\n"
        "    index_scores = index_scores + attention_mask[:, 0]\n"
        "    return index_scores.topk(k, dim=-1).indices\n\n\n"
        "def run(index_scores):\n"
        "    mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))[None, None]\n"
        "    return indexer_topk(index_scores, mask, 2)\n"
    )
    found = check_source(source, "case.py")
    assert [(finding.code, finding.line) for finding in found] == [("AM201", 5)]
