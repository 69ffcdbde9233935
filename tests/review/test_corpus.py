"""Real-world cases written from public bug reports: what the checker catches, rule by rule.

Each file in corpus/ cites its report and marks the lines a finding belongs on with
``# expect: AM101`` (several codes: ``# expect: AM104, AM202``).  Recall per rule is printed
and must stay above RECALL_FLOOR; nothing beyond the expected findings may be reported.  Two
cases are known misses, kept so the figure means something: a mask whose polarity comes from
another function's caller (``microsoft_torchscale_97_across_functions``) and keys grown inside a
cache object (``pytorch_103082_cache_object``).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from attention.review.check import check_source
from attention.review.rules import RULES

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*.py"))
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>AM\d+(?:\s*,\s*AM\d+)*)")
RECALL_FLOOR = 0.85


def expected(source: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group("codes").split(","))
    return found


def reported(source: str) -> set[tuple[int, str]]:
    return {(finding.line, finding.code) for finding in check_source(source)}


def test_every_case_cites_its_report() -> None:
    assert len(FILES) >= 10
    for path in FILES:
        doc = path.read_text().split('"""')[1]
        assert re.search(r"[\w.-]+/[\w.-]+#\d+", doc), f"{path.name} cites no report"


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_no_finding_beyond_the_expected(path: Path) -> None:
    source = path.read_text()
    assert reported(source) <= expected(source)


def test_recall_per_rule(capsys: pytest.CaptureFixture[str]) -> None:
    wanted: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    for path in FILES:
        source = path.read_text()
        want = expected(source)
        got = reported(source)
        for _, code in want:
            wanted[code] += 1
        for _, code in want & got:
            caught[code] += 1
    lines = ["rule    expected  caught  recall"]
    for rule in RULES:
        if wanted[rule.code]:
            recall = caught[rule.code] / wanted[rule.code]
            lines.append(
                f"{rule.code}  {wanted[rule.code]:8d}  {caught[rule.code]:6d}  {recall:6.0%}"
            )
    total = sum(caught.values()) / sum(wanted.values())
    lines.append(f"all     {sum(wanted.values()):8d}  {sum(caught.values()):6d}  {total:6.0%}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert total >= RECALL_FLOOR
