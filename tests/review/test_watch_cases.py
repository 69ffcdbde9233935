"""The value-only cases written from public bug reports: each shows its bug, and the record is current.

The cases and their split live in ``tests/review/watch_cases/`` (see its ``evaluate.py``); the
recall per split is in ``docs/_data/watch-recall.json``, which this test holds the code to.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "watch_cases"))
import evaluate

RECORD = Path(__file__).parents[2] / "docs" / "_data" / "watch-recall.json"
CASES = [path for paths in evaluate.cases().values() for path in paths]


def test_there_are_forty_cases_and_every_third_is_held_out() -> None:
    assert len(CASES) >= 40
    for split, paths in evaluate.cases().items():
        for path in paths:
            number = int(path.stem[1:3])
            assert (number % 3 == 0) == (split == "heldout"), path.name


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_each_case_cites_its_report_and_shows_its_bug_here(path: Path) -> None:
    result = evaluate.evaluate(path)
    assert str(result["source"]).startswith("https://github.com/")
    assert result["reproduced"], f"{path.name}: wrong() and right() agree on this torch"
    assert result["false_findings"] == [], f"{path.name}: the fix is reported"


def test_the_recall_record_is_the_one_the_code_gives() -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    current = evaluate.record()
    for split in evaluate.SPLITS:
        assert recorded["splits"][split] == current["splits"][split], (  # type: ignore[index]
            f"{RECORD} is stale: python tests/review/watch_cases/evaluate.py --out {RECORD}"
        )
