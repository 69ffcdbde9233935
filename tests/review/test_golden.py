"""The golden record's fast part: the corpus, the bug corpus, the rules' examples and the CLI.

``tests/review/golden/`` holds every field of every finding (:mod:`attention.review.golden`);
these sets take about a second and need neither torch nor a download, so every run holds the
checker to them byte for byte.  The rest (the released code, transformers' ``models/``, the
watch) is compared by ``nox -s golden``.  A change that means to change a finding rewrites the
record (``nox -s golden -- --write``) and the diff shows what changed.
"""

from __future__ import annotations

import json

import pytest

from attention.review.golden import FAST_SETS, GOLDEN, SETS, first_difference, record


@pytest.mark.parametrize("name", FAST_SETS)
def test_the_findings_are_the_recorded_ones(name: str) -> None:
    expected = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8")
    actual = record(name)
    if actual != expected:
        difference = first_difference(expected.splitlines(), actual.splitlines())
        pytest.fail(
            f"{name}: the findings differ from tests/review/golden/{name}.jsonl at {difference}; "
            "if the change is meant, rewrite it with `nox -s golden -- --write` and read the diff"
        )


def test_every_set_has_its_file() -> None:
    assert sorted(path.stem for path in GOLDEN.glob("*.jsonl")) == sorted(SETS)


def test_a_reworded_message_is_named_field_by_field() -> None:
    line = {"path": "a.py", "line": 3, "code": "AM101", "message": "`m` is True", "inferred": []}
    reworded = {**line, "message": "`m` is true"}
    difference = first_difference([json.dumps(line)], [json.dumps(reworded)])
    assert difference == "line 1: a.py:3 AM101: message: '`m` is True' -> '`m` is true'"


def test_a_lost_or_gained_finding_is_named_as_such() -> None:
    first, second, third = (
        json.dumps({"path": "a.py", "line": line, "code": "AM202"}) for line in (3, 9, 12)
    )
    assert first_difference([first, second, third], [first, third]) == f"line 2: lost: {second}"
    assert first_difference([first, third], [first, second, third]) == f"line 2: gained: {second}"
