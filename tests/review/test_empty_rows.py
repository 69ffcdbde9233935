"""AM603: a softmax of scores whose mask was built with a query row that allows no key.

A row the source sets whole (every key) to the penalty — ``bias[..., 2, :] = -inf`` on zeros,
``m[0, 2, :] = False`` on ones read as allowed, ``m[2] = True`` on zeros read as forbidden —
is all -inf after the mask, and a plain softmax gives NaN for it (rten#1321, onnxscript#2479).
Not reported when the penalty is finite (``finfo.min`` gives a uniform row), when a guard
flushes the NaN weights, or when what was set is a key column or one entry.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\ndef attend(q, k, v):\n"
_SCORES = "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"


def found(body: str) -> list[tuple[str, int]]:
    source = _HEAD + body
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


_BIAS = "    bias = torch.zeros(1, 1, 3, 3)\n    bias[..., 2, :] = float('-inf')\n"
_ONES = "    m = torch.ones(1, 3, 3).bool()\n    m[0, 2, :] = False\n"
_ZEROS = "    m = torch.zeros(3, 3, dtype=torch.bool)\n    m[2] = True\n"


@pytest.mark.parametrize(
    ("mask", "masked"),
    [
        (_BIAS, "scores + bias"),
        (_ONES, "scores.masked_fill(~m, float('-inf'))"),
        (_ONES, "torch.where(m, scores, float('-inf'))"),
        (_ONES, "scores + torch.where(m, 0.0, float('-inf'))"),
        (_ZEROS, "scores.masked_fill(m, float('-inf'))"),
        (_BIAS, "scores + bias[None]"),  # a new leading axis keeps the row
        (_ONES, "scores.masked_fill(~m.unsqueeze(1), float('-inf'))"),
    ],
)
def test_a_row_with_no_allowed_key(mask: str, masked: str) -> None:
    body = mask + _SCORES + f"    return torch.softmax({masked}, dim=-1) @ v\n"
    assert found(body) == [("AM603", 8)]


@pytest.mark.parametrize(
    ("mask", "masked"),
    [
        (_ONES, "scores.masked_fill(~m, torch.finfo(scores.dtype).min)"),  # uniform, not NaN
        (_ONES, "scores.masked_fill(m, float('-inf'))"),  # the row allows every key
        (_ZEROS, "scores.masked_fill(~m, float('-inf'))"),
        (_BIAS.replace("[..., 2, :]", "[..., 2]"), "scores + bias"),  # a key column
        (_BIAS.replace("[..., 2, :]", "[..., 2, 1]"), "scores + bias"),  # one entry
        (_ONES.replace("= False", "= True"), "scores.masked_fill(~m, float('-inf'))"),
        (_BIAS, "scores + bias.transpose(-2, -1)"),  # the row is a key column now
        (_BIAS, "scores + bias.mT"),
        (_ONES, "scores.masked_fill(~m.transpose(1, 2), float('-inf'))"),
        (_ONES, "scores.masked_fill(~m.view(1, 9), float('-inf'))"),
        (_ONES, "scores.masked_fill(~m.unsqueeze(-1), float('-inf'))"),
    ],
)
def test_no_empty_row(mask: str, masked: str) -> None:
    body = mask + _SCORES + f"    return torch.softmax({masked}, dim=-1) @ v\n"
    assert found(body) == []


@pytest.mark.parametrize(
    "guard",
    [
        "w = torch.where(w.isnan(), 0.0, w)",
        "w = torch.where(torch.isnan(w), torch.zeros_like(w), w)",
        "w = w.nan_to_num(0.0)",
        "w = torch.nan_to_num(w)",
        "w = w.masked_fill(w.isnan(), 0.0)",
        "w[w.isnan()] = 0.0",
    ],
)
def test_nan_rows_flushed(guard: str) -> None:
    body = (
        _BIAS
        + _SCORES
        + "    w = (scores + bias).softmax(-1)\n"
        + f"    {guard}\n    return w @ v\n"
    )
    assert found(body) == []


def test_a_mask_handed_to_the_attention() -> None:
    source = (
        "import torch\n\n\n"
        "def attend(q, k, v, bias):\n"
        "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + bias\n"
        "    return scores.softmax(dim=-1) @ v\n\n\n"
        "def run(q, k, v):\n"
        "    bias = torch.zeros(1, 1, 3, 3)\n"
        "    bias[..., 2, :] = float('-inf')\n"
        "    return attend(q, k, v, bias)\n"
    )
    found_ = [(f.code, f.line) for f in check_source(source, "case.py")]
    assert found_ == [("AM603", 6)]


_CAUSAL = "    causal = torch.ones(2, 3, dtype=torch.bool).tril()\n"


@pytest.mark.parametrize(
    ("rows", "masked", "expected"),
    [
        # a padding row added under a causal mask read as allowed (pytorch#103749)
        ("torch.zeros(1, 3, dtype=torch.bool)", "~m", [("AM603", 9)]),
        ("torch.zeros(1, 3, dtype=torch.bool)", "m", []),  # read as forbidden: all allowed
        ("torch.ones(1, 3, dtype=torch.bool)", "~m", []),  # a row that allows every key
        ("torch.zeros(1, 3)", "~m", []),  # a float block is not the mask's dtype
        ("torch.zeros(3, dtype=torch.bool)[None]", "~m", []),  # sizes not written
    ],
)
def test_rows_joined_to_a_mask(rows: str, masked: str, expected: list[tuple[str, int]]) -> None:
    body = (
        _CAUSAL
        + f"    m = torch.cat([causal, {rows}])\n"
        + "    scores = q @ k.transpose(-2, -1)\n"
        + f"    scores = scores.masked_fill({masked}, float('-inf'))\n"
        + "    return torch.softmax(scores, dim=-1) @ v\n"
    )
    assert found(body) == expected


def test_rows_joined_along_the_key_axis_are_key_columns() -> None:
    body = (
        _CAUSAL
        + "    m = torch.cat([causal, torch.zeros(2, 1, dtype=torch.bool)], dim=-1)\n"
        + "    scores = q @ k.transpose(-2, -1)\n"
        + "    return torch.softmax(scores.masked_fill(~m, float('-inf')), dim=-1) @ v\n"
    )
    assert found(body) == []


_JOINED = _CAUSAL + "    m = torch.cat([causal, torch.zeros(1, 3, dtype=torch.bool)])\n"
_READ = (
    "    scores = (q @ k.transpose(-2, -1)).masked_fill(~m, float('-inf'))\n"
    "    w = torch.softmax(scores, dim=-1)\n"
)


@pytest.mark.parametrize(
    ("repair", "expected"),
    [
        ("    m[:, 0] = True\n", []),  # every query sees key 0
        ("    m.fill_diagonal_(True)\n", []),
        ("    m[:, 0] = False\n", [("AM603", 9)]),  # the row's own value: still empty
    ],
)
def test_an_empty_row_given_a_key(repair: str, expected: list[tuple[str, int]]) -> None:
    assert found(_JOINED + repair + _READ + "    return w @ v\n") == expected


def test_the_empty_rows_zeroed_after_the_softmax() -> None:
    guard = "    return w.masked_fill(~m.any(-1, keepdim=True), 0.0) @ v\n"
    assert found(_JOINED + _READ + guard) == []
