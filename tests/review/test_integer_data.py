"""Integer tensors the source writes out: ``~`` on them flips bits (AM701).

``torch.tensor([[1, 1, 0]])`` is int64 (the tokenizer's 1/0 ``attention_mask`` written out), and
``x.to(torch.uint8)`` is uint8 whether the dtype is a keyword or the first argument.  A helper
handed such a tensor is read with it, so ``~attention_mask`` inside is found where it is written
(huggingface/transformers#1389).  Boolean or float data, a dtype given as ``torch.bool``, and
``.to(device)`` give nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention.review.check import check_source

CASE = (
    Path(__file__).parent
    / "bugs"
    / "development"
    / "invert_non_bool__huggingface_transformers_1389"
)
"""XLNet's ``input_mask = ~attention_mask`` on the tokenizer's integer mask."""


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


def test_the_corpus_case_is_found_at_the_inversion_and_its_fix_is_not() -> None:
    bug = CASE.with_name(CASE.name + "_bug.py").read_text(encoding="utf-8")
    fix = CASE.with_name(CASE.name + "_fix.py").read_text(encoding="utf-8")
    assert (11, "AM701") in codes(bug)
    assert "AM701" not in [code for _, code in codes(fix)]


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        ("torch.tensor([[1, 1, 0], [1, 0, 0]])", ["AM701"]),
        ("torch.tensor([1, -1, 0])", ["AM701"]),
        ("torch.tensor([[1, 1, 0]], dtype=torch.long)", ["AM701"]),
        ("torch.tensor([[1, 1, 0]], dtype=torch.bool)", []),
        ("torch.tensor([[True, True, False]])", []),
        ("torch.tensor([[1.0, 1.0, 0.0]])", []),
        ("torch.tensor([[1, 1, n]])", []),  # not all literals
        ("(s > 0).to(torch.uint8)", ["AM701"]),
        ("(torch.rand(2, 3) > 0.5).to(torch.uint8)", ["AM701"]),
        ("torch.rand(2, 3).to(torch.uint8)", ["AM701"]),
        ("(s > 0).to(dtype=torch.uint8)", ["AM701"]),
        ("(s > 0).to(torch.int64)", ["AM701"]),
        ("(s > 0).to(torch.bool)", []),
        ("(s > 0).to(s.device)", []),
    ],
)
def test_which_tensors_are_integers(made: str, expected: list[str]) -> None:
    source = (
        "import torch\n\n\n"
        f"def f(s, n):\n    m = {made}\n"
        "    return s.masked_fill(~m, float('-inf')).softmax(dim=-1)\n"
    )
    assert [code for _, code in codes(source) if code.startswith("AM70")] == expected
