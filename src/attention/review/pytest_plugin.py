"""pytest under the runtime watch: ``pytest --attention-watch`` or ``--attention-watch=strict``.

The option itself is added by the light ``attention_review_pytest`` entry point (a ``pytest11``
plugin that imports nothing heavy); when it is given, :class:`WatchPlugin` is registered and
runs each test's call phase inside :func:`attention.review.watch`.  Findings are listed per test
in the terminal summary; with ``strict`` the call that has one raises
:class:`~attention.review.watch_rules.AttentionWatchError` (the test fails there), and a run
whose tests swallowed that error still exits with failures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator

import pytest

from attention.review.watch import Finding, watch

__all__ = ["WatchPlugin"]


class WatchPlugin:
    """Runs every test under the watch and keeps what it found, by test."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.findings: dict[str, list[Finding]] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        """The test body, watched."""
        seen = watch(strict=self.strict, warn=False)
        try:
            with seen:
                return (yield)
        finally:
            if seen.findings:
                self.findings.setdefault(item.nodeid, []).extend(seen.findings)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """One section: each test's findings, the same finding at the same place counted once."""
        mode = "strict" if self.strict else "warn"
        total = sum(len(found) for found in self.findings.values())
        terminalreporter.section(f"attention watch ({mode})")
        if not total:
            terminalreporter.write_line("no mask findings")
            return
        for nodeid, found in self.findings.items():
            terminalreporter.write_line(nodeid)
            counts = Counter((f.code, f.seen, f.location) for f in found)
            first = {(f.code, f.seen, f.location): f for f in reversed(found)}
            for key, count in counts.items():
                finding = first[key]
                times = f" (×{count})" if count > 1 else ""
                where = f"{finding.location}: " if finding.location else ""
                terminalreporter.write_line(f"  {where}{finding}{times}".replace("\n", "\n  "))
        terminalreporter.write_line(
            f"{total} mask finding(s) in {len(self.findings)} test(s)"
            + ("" if self.strict else "; --attention-watch=strict fails on them")
        )

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Strict: findings fail the run even where a test caught the error."""
        if self.strict and self.findings and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
