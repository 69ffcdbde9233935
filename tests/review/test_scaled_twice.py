"""AM504: scores divided by √d twice, whatever form each division takes, and nothing else.

The rule subscribes to the event of scores being scaled and reads one fact the scores carry:
the scale, written out as a root or a power, that already divided them.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import math\n\nimport torch\n\n\ndef attend(q, k, v, scale):\n    d = q.size(-1)\n"


def codes(body: str) -> list[tuple[str, int]]:
    source = _HEAD + body + "    return torch.softmax(scores, dim=-1) @ v\n"
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "again",
    ["scores / math.sqrt(d)", "scores * d ** -0.5", "scores.div(math.sqrt(d))"],
)
def test_a_second_division_by_root_d_is_found_in_any_form(again: str) -> None:
    body = f"    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n    scores = {again}\n"
    assert codes(body) == [("AM504", 9)]


def test_one_division_is_right() -> None:
    assert codes("    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n") == []


def test_a_scale_known_by_its_name_only_may_be_a_temperature() -> None:
    body = "    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n    scores = scores * scale\n"
    assert codes(body) == []


def test_a_division_on_one_path_only_is_not_taken_for_two() -> None:
    body = (
        "    scores = q @ k.transpose(-2, -1)\n"
        "    if d > 1:\n"
        "        scores = scores / math.sqrt(d)\n"
        "    scores = scores / math.sqrt(d)\n"
    )
    assert codes(body) == []


def test_scores_no_softmax_reads_are_no_attention_finding() -> None:
    source = _HEAD + (
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n    return scores / math.sqrt(d)\n"
    )
    assert [finding.code for finding in check_source(source, "case.py")] == []
