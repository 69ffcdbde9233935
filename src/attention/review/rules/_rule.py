"""The shape of a rule: what every family module's entries are made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from attention.review.demos import DEMOS

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Rule:
    """One rule of the checker.

    ``message`` is the finding's headline; ``wrong`` / ``right`` are complete Python files
    (``wrong`` gives exactly one finding of this rule, ``right`` none); ``demo_wrong`` /
    ``demo_right`` are doctest texts that print what each does on torch.
    """

    code: str
    name: str
    severity: Severity
    rows: tuple[str, ...]
    summary: str
    message: str
    fix: str
    wrong: str
    right: str
    fixable: bool = False

    @property
    def demo_wrong(self) -> str:
        """The wrong example run on torch, as a doctest (``>>>`` lines and their output)."""
        return DEMOS[self.code][0]

    @property
    def demo_right(self) -> str:
        """The right example run on torch, as a doctest."""
        return DEMOS[self.code][1]
