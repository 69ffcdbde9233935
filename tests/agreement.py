"""Count the Hypothesis-generated cases in which the package was compared with torch."""

from __future__ import annotations

from collections import Counter

MINIMUM_CASES = 2000
"""A full run must compare at least this many generated cases with torch."""

# Each agreement test registers itself at import time with its example budget; the summary
# compares what ran with what was promised.
_EXPECTED: dict[str, int] = {}
_COUNTS: Counter[str] = Counter()


def register(name: str, max_examples: int) -> int:
    """Declare an agreement test and return its Hypothesis ``max_examples``."""
    _EXPECTED[name] = max_examples
    return max_examples


def count(name: str) -> None:
    """Record one generated case of ``name`` that passed its comparison."""
    _COUNTS[name] += 1


def registered() -> bool:
    """True when some agreement test was collected in this run."""
    return bool(_EXPECTED)


def total() -> int:
    """Cases compared so far, all tests together."""
    return sum(_COUNTS.values())


def ran_all_agreement_tests() -> bool:
    """True when every registered agreement test ran at least once (i.e. not a filtered run)."""
    return bool(_EXPECTED) and all(_COUNTS[name] for name in _EXPECTED)


def summary() -> str:
    """One line per test and the total, for the terminal summary."""
    parts = ", ".join(f"{name}: {_COUNTS[name]}" for name in sorted(_EXPECTED))
    return f"Hypothesis agreement cases vs torch: {total()} (minimum {MINIMUM_CASES}; {parts})"
