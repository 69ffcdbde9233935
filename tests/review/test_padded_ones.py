"""Ones padded with zeros are a mask whose 1s are the real positions (True = allowed).

``F.unfold(torch.ones(1, 1, h, w), ..., padding=halo)`` gives, per block, 1 on the pixels of the
image and 0 on the padding (halo attention); so does ``F.pad(torch.ones(...), pad)``.  Filled
with a penalty where it is True, it forbids the real pixels: AM102 (lucidrains/halonet-pytorch#4).
Its meaning survives ``.t()`` / ``transpose`` / ``permute`` (the axes move, not what True means).
Without padding, padded with another value, or of zeros, it is no mask.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention.review.check import check_source

CASE = Path(__file__).parent / "bugs" / "development" / "polarity__lucidrains_halonet_pytorch_4"


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


def test_the_corpus_case_is_found_and_its_fix_is_not() -> None:
    bug = CASE.with_name(CASE.name + "_bug.py").read_text(encoding="utf-8")
    fix = CASE.with_name(CASE.name + "_fix.py").read_text(encoding="utf-8")
    assert codes(bug) == [(20, "AM102")]
    assert codes(fix) == []


@pytest.mark.parametrize(
    ("made", "used", "expected"),
    [
        (
            "F.unfold(torch.ones(1, 1, h, w), kernel_size=4, stride=2, padding=1)",
            "m.bool()",
            ["AM102"],
        ),
        ("F.unfold(torch.ones(1, 1, h, w), 4, 1, 1, 2)", "m.bool()", ["AM102"]),
        ("F.unfold(torch.ones(1, 1, h, w), kernel_size=4, stride=2, padding=1)", "~m.bool()", []),
        ("F.unfold(torch.ones(1, 1, h, w), kernel_size=4, stride=2, padding=0)", "m.bool()", []),
        ("F.unfold(torch.ones(1, 1, h, w), kernel_size=4, stride=2)", "m.bool()", []),
        ("F.unfold(torch.zeros(1, 1, h, w), kernel_size=4, stride=2, padding=1)", "m.bool()", []),
        ("F.pad(torch.ones(b, n), (0, 2))", "m.bool()", ["AM102"]),
        ("F.pad(torch.ones(b, n), (0, 2), value=1.0)", "m.bool()", []),
        ("F.pad(torch.ones(b, n), (0, 2), 'constant', 1.0)", "m.bool()", []),
        ("F.pad(torch.ones(b, n), (0, 2))", "m.t().bool()", ["AM102"]),
        ("F.pad(torch.ones(b, n), (0, 2))", "m.transpose(0, 1).bool()", ["AM102"]),
    ],
)
def test_padded_ones(made: str, used: str, expected: list[str]) -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        f"def f(sim, b, n, h, w):\n    m = {made}\n"
        f"    return sim.masked_fill({used}, float('-inf')).softmax(dim=-1)\n"
    )
    assert [code for _, code in codes(source)] == expected


def test_a_transposed_triangle_is_the_other_triangle() -> None:
    """A triangle keeps its own reading: the future mask transposed forbids the past (AM303)."""
    source = (
        "import torch\n\n\n"
        "def f(sim, n):\n    m = torch.ones(n, n, dtype=torch.bool).triu(1)\n"
        "    return sim.masked_fill(m.t(), float('-inf')).softmax(dim=-1)\n"
    )
    assert codes(source) == [(6, "AM303")]
