"""The rule pages' demonstrations as doctests: one pytest item per example, on the live torch.

A rule page is one line, ```` ```{review-rule} AM101 ```` (docs/_ext/review_rules.py writes the
page from the rule registry), so the doctests it shows are not in the page's text for Sybil
(docs/conftest.py) to find.  Here each page that names a rule yields the two examples it shows,
``AM101 wrong`` and ``AM101 right`` (the rule's ``demo_wrong`` / ``demo_right``), and a page that
holds ```` ```{review-watch-rules} ```` yields each runtime rule's demonstration
(docs/_ext/review_watch_demos.py).  They run with the flags docs/conftest.py uses, each in a
namespace of its own, from torch's default print options.
"""

from __future__ import annotations

import doctest
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))

from review_watch_demos import WATCH_DEMOS

from attention.review.rules import by_code

OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
RULE = re.compile(r"^```\{review-rule\}\s+(?P<code>\S+)\s*$", re.MULTILINE)
WATCH_RULES = re.compile(r"^```\{review-watch-rules\}\s*$", re.MULTILINE)


class DemoFailedError(Exception):
    """A demonstration printed something other than what the page shows."""


class Demo(pytest.Item):
    """One demonstration, run as a doctest."""

    def __init__(self, *, text: str, line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text
        self.line = line

    def runtest(self) -> None:
        torch.set_printoptions(profile="default")
        test = doctest.DocTestParser().get_doctest(self.text, {}, self.name, str(self.path), 0)
        runner = doctest.DocTestRunner(optionflags=OPTIONFLAGS)
        report: list[str] = []
        try:
            runner.run(test, out=report.append)
        finally:
            torch.set_printoptions(profile="default")
        if runner.failures:
            raise DemoFailedError("".join(report))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DemoFailedError):
            return f"{self.path.name} ({self.name}):\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line, self.name


class RulePage(pytest.File):
    """A page that shows rules: the demonstrations it shows, in page order."""

    def collect(self) -> Iterator[Demo]:
        text = self.path.read_text(encoding="utf-8")
        for match in RULE.finditer(text):
            line = text.count("\n", 0, match.start())
            rule = by_code(match["code"])
            for which, demo in (("wrong", rule.demo_wrong), ("right", rule.demo_right)):
                yield Demo.from_parent(self, name=f"{rule.code} {which}", text=demo, line=line)
        for match in WATCH_RULES.finditer(text):
            line = text.count("\n", 0, match.start())
            for code, demo in WATCH_DEMOS.items():
                yield Demo.from_parent(self, name=code, text=demo, line=line)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> RulePage | None:
    if file_path.suffix != ".md":
        return None
    text = file_path.read_text(encoding="utf-8")
    if RULE.search(text) or WATCH_RULES.search(text):
        return RulePage.from_parent(parent, path=file_path)
    return None
