"""Run the doctests of the documentation pages with Sybil: one pytest item per example.

Collected from ``docs/**/*.md``:

* ```` ```{doctest} ```` blocks (the ``sphinx.ext.doctest`` directive in MyST), and
* ```` ```python ```` / ```` ```pycon ```` fences whose content starts with ``>>>``.

A page's examples share one namespace, in page order, so the first block imports what the page
uses.  Code cells (```` ```{code-cell} ````) are not doctests: myst-nb executes them when the site
is built.  The option flags match ``doctest_default_flags`` in docs/conf.py so both runners agree.

An example whose result depends on the torch release says for which releases it holds, in a
comment on its first line (``# torch 2.15 and newer``, ``# torch up to 2.14``, ``# torch 2.5 to
2.14``); on any other release it is skipped, so a page can show the result of each release.

Run with ``nox -s doctest`` (which also runs the docstring examples in src/attention).
"""

from __future__ import annotations

import doctest
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

import torch
from sybil import Document, Example, Region, Sybil

# The pages show the checker's English output, whatever the reader's locale.
os.environ["LANGUAGE"] = "en"
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.parsers.abstract import DocTestStringParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.myst import DocTestDirectiveParser

OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
INSTALLED = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
_RELEASES = re.compile(
    r"#\s*torch (?:(?P<low>\d+\.\d+) and newer|up to (?P<high>\d+\.\d+)"
    r"|(?P<start>\d+\.\d+) to (?P<end>\d+\.\d+))\s*$"
)


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def holds_on_installed_torch(source: str) -> bool:
    """False when the example's first line names torch releases that exclude the installed one.

    >>> holds_on_installed_torch("x  # torch 0.1 and newer"), holds_on_installed_torch("x")
    (True, True)
    >>> holds_on_installed_torch("x  # torch up to 0.1")
    False
    """
    found = _RELEASES.search(source.splitlines()[0])
    if found is None:
        return True
    if found["low"]:
        return _release(found["low"]) <= INSTALLED
    if found["high"]:
        return _release(found["high"]) >= INSTALLED
    return _release(found["start"]) <= INSTALLED <= _release(found["end"])


class ReleaseAware:
    """An evaluator that skips the examples stated for other torch releases (passes the rest on)."""

    def __init__(self, evaluator: Callable[[Example], Any]) -> None:
        self.evaluator = evaluator

    def __call__(self, example: Example) -> Any:
        parsed = example.parsed
        if isinstance(parsed, doctest.Example) and not holds_on_installed_torch(parsed.source):
            return None  # this result is the one of another release
        return self.evaluator(example)


class ReleaseAwareParser:
    """``parser``'s regions, each evaluated by :class:`ReleaseAware`."""

    def __init__(self, parser: Callable[[Document], Iterable[Region]]) -> None:
        self.parser = parser

    def __call__(self, document: Document) -> Iterable[Region]:
        for region in self.parser(document):
            if region.evaluator is not None:
                region.evaluator = ReleaseAware(region.evaluator)
            yield region


# Not pages: build output, notebook outputs, helpers, this folder's own tests.
collect_ignore_glob = ["_build/*", "jupyter_execute/*", "_vendor/*", "tests/*", "*.py"]


class PythonDocTestFenceParser:
    """```` ```python ```` / ```` ```pycon ```` fences that hold a doctest (start with ``>>>``).

    Sybil's own MyST ``PythonCodeBlockParser`` would also execute every plain python fence and
    every ``{code-cell}``; here only doctests count, and the code cells run in the site build.
    """

    def __init__(self, optionflags: int) -> None:
        self.lexer = FencedCodeBlockLexer(language=r"python|pycon|py", mapping={"source": "source"})
        self.string_parser = DocTestStringParser(DocTestEvaluator(optionflags))

    def __call__(self, document: Document) -> Iterable[Region]:
        for lexed in self.lexer(document):
            source = lexed.lexemes["source"]
            if not str(source).lstrip().startswith(">>>"):
                continue
            for region in self.string_parser(source, document.path):
                region.adjust(lexed, source)
                yield region


def _fresh_print_options(namespace: dict[str, Any]) -> None:
    """Each page starts from torch's default print options, whatever ran before it."""
    torch.set_printoptions(profile="default")


pytest_collect_file = Sybil(
    parsers=[
        ReleaseAwareParser(DocTestDirectiveParser(optionflags=OPTIONFLAGS)),
        ReleaseAwareParser(PythonDocTestFenceParser(optionflags=OPTIONFLAGS)),
    ],
    patterns=["*.md"],
    excludes=["_build/*", "jupyter_execute/*", "_vendor/*", "**/README.md"],
    setup=_fresh_print_options,
    teardown=_fresh_print_options,
).pytest()
