"""Where the key axis of the scores is, wherever the code put it.

``q @ kᵀ`` puts the keys last; an einsum may write them before the queries (``...kq``), and a
transpose moves them.  A softmax is judged against the axis the keys are on.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import math\n\nimport torch\n\n\ndef attend(q, k, v, m):\n"


def codes(body: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(_HEAD + body, "case.py")]


@pytest.mark.parametrize(
    ("equation", "dim", "expected"),
    [
        ("bhqd,bhkd->bhkq", -1, [("AM402", 8)]),  # the queries
        ("bhqd,bhkd->bhkq", -2, []),  # the keys
        ("bhqd,bhkd->bhkq", 2, []),
        ("bqd,bkd->bkq", 1, []),
        ("bqd,bkd->bkq", 2, [("AM402", 8)]),
        ("bihd,bjhd->bijh", 2, []),
        ("bihd,bjhd->bijh", 1, [("AM402", 8)]),
        ("bihd,bjhd->bijh", -1, [("AM402", 8)]),  # the heads
    ],
)
def test_an_einsum_says_where_its_keys_are(equation: str, dim: int, expected: list) -> None:
    body = (
        f'    s = torch.einsum("{equation}", q, k) / math.sqrt(q.shape[-1])\n'
        f"    w = s.softmax({dim})\n"
    )
    assert codes(body) == expected


@pytest.mark.parametrize(
    ("moves", "dim", "expected"),
    [
        ("s.transpose(-1, -2)", -1, [("AM402", 9)]),
        ("s.transpose(-1, -2)", -2, []),
        ("s.transpose(-2, -1).transpose(-1, -2)", -1, []),
        ("s.transpose(1, 2)", -1, []),  # heads and queries of unknown rank: keys stay last
    ],
)
def test_a_transpose_moves_the_keys(moves: str, dim: int, expected: list) -> None:
    body = (
        "    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])\n"
        f"    s = {moves}\n"
        f"    w = s.softmax({dim})\n"
    )
    assert codes(body) == expected


@pytest.mark.parametrize(
    "masking",
    [
        "s = s.masked_fill(m, float('-inf'))",
        "s = s + m",
        "s = torch.where(m, s, float('-inf'))",
    ],
)
def test_a_mask_on_scores_whose_keys_moved_is_not_judged(masking: str) -> None:
    body = (
        '    s = torch.einsum("bqd,bkd->bkq", q, k) / math.sqrt(q.shape[-1])\n'
        f"    {masking}\n"
        "    return s.softmax(1) @ v\n"
    )
    assert codes(body) == []


@pytest.mark.parametrize(
    ("operands", "dim", "expected"),
    [
        ("keys, queries", 2, []),  # torchaudio's HDemucs: t are the keys
        ("keys, queries", 3, [("AM402", 8)]),
        ("queries, keys", 3, []),
        ("queries, keys", 2, [("AM402", 8)]),
        ("a, b", 2, []),  # no name says which operand holds the keys: unknown
        ("a, b", 3, []),
    ],
)
def test_the_names_of_an_einsum_s_operands_say_which_holds_the_keys(
    operands: str, dim: int, expected: list
) -> None:
    body = (
        f'    s = torch.einsum("bhct,bhcs->bhts", {operands}) / math.sqrt(q.shape[2])\n'
        f"    w = torch.softmax(s, dim={dim})\n"
    )
    assert codes(body.replace("def attend(q, k, v, m)", "")) == expected
