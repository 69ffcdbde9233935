"""The real-code ledger's form (its findings are checked by ``nox -s realcode``, which downloads).

Each entry names a pinned release, a path inside it, a line, a rule, a verdict and the reason
it was given; entries are sorted and unique, so a change to the ledger reads as a small diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention.review.realcode import VERDICTS, Entry, LedgerError, load_ledger, load_pins
from attention.review.rules import RULES

ROOT = Path(__file__).parents[2]
PINS = ROOT / "conf" / "realcode-pins.txt"
LEDGER = Path(__file__).parent / "realcode" / "ledger.toml"


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    return load_ledger(LEDGER)


def test_at_least_fifteen_packages_are_pinned() -> None:
    assert len(load_pins(PINS)) >= 15


def test_every_entry_is_of_a_pinned_release(entries: list[Entry]) -> None:
    pins = load_pins(PINS)
    for entry in entries:
        assert pins.get(entry.package) == entry.version, entry.key


def test_every_entry_names_a_rule_a_verdict_and_a_reason(entries: list[Entry]) -> None:
    codes = {rule.code for rule in RULES}
    for entry in entries:
        assert entry.code in codes, entry.key
        assert entry.verdict in VERDICTS, entry.key
        assert len(entry.reason.split()) >= 4, f"{entry.key}: say why, in a sentence"
        assert not entry.path.startswith("/"), entry.key


def test_the_entries_are_sorted_and_unique(entries: list[Entry]) -> None:
    keys = [(e.package.lower(), e.path, e.line, e.code) for e in entries]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_a_malformed_entry_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "ledger.toml"
    bad.write_text(
        '[[finding]]\npackage = "p"\nversion = "1"\npath = "a.py"\nline = 3\ncode = "AM101"\n'
        'verdict = "maybe"\nreason = "r"\n',
        encoding="utf-8",
    )
    with pytest.raises(LedgerError, match="verdict 'maybe'"):
        load_ledger(bad)
    bad.write_text('[[finding]]\npackage = "p"\n', encoding="utf-8")
    with pytest.raises(LedgerError, match="fields"):
        load_ledger(bad)
