"""Shared test configuration: Hypothesis profiles and the counters of generated cases."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from tests import agreement, bad_inputs

# The checker speaks the reader's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG); the tests read
# its English output unless they ask for another language.
os.environ["LANGUAGE"] = "en"

# CI runs derandomised so a red build is reproducible from its log; locally every run explores anew.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Report how many generated cases compared the package with torch (when any could run)."""
    if agreement.registered():
        terminalreporter.write_line(agreement.summary())
    if bad_inputs.OUTCOMES:
        terminalreporter.write_line(bad_inputs.summary())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a full run that compared fewer generated cases than it promises."""
    if agreement.ran_all_agreement_tests() and agreement.total() < agreement.MINIMUM_CASES:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
