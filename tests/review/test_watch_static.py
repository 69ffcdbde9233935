"""The watch's rules and the checker's, paired: the same mistake, on the same rows.

Each runtime rule names the static rules that find its mistake in the source
(``WatchRule.static``); every code named exists, and where both rules rest on rows of the
mask-semantics table they share one, so a reviewer citing either cites the same claim.
"""

from __future__ import annotations

import pytest

from attention.review.rules import RULES as STATIC
from attention.review.watch_rules import RULES as WATCH
from attention.review.watch_rules import WatchRule

BY_CODE = {rule.code: rule for rule in STATIC}
PAIRS = [
    pytest.param(watch, code, id=f"{watch.code}-{code}")
    for watch in WATCH.values()
    for code in watch.static
]


@pytest.mark.parametrize(("watch", "code"), PAIRS)
def test_a_paired_rule_exists_and_rests_on_the_same_rows(watch: WatchRule, code: str) -> None:
    assert code in BY_CODE, f"{watch.code} names {code}, which is no rule"
    static = BY_CODE[code]
    if watch.rows and static.rows:
        assert set(watch.rows) & set(static.rows), (watch.code, code)


def test_almost_every_runtime_rule_has_a_static_twin() -> None:
    """A mistake the watch sees in values and the checker never in code is the exception:
    a uniform softmax (AW217) follows from values alone."""
    alone = sorted(code for code, rule in WATCH.items() if not rule.static)
    assert alone == ["AW217"]
