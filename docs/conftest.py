"""Run the doctests of the documentation pages with Sybil: one pytest item per example.

Collected from ``docs/**/*.md``:

* ```` ```{doctest} ```` blocks (the ``sphinx.ext.doctest`` directive in MyST), and
* ```` ```python ```` / ```` ```pycon ```` fences whose content starts with ``>>>``.

A page's examples share one namespace, in page order, so the first block imports what the page
uses.  Code cells (```` ```{code-cell} ````) are not doctests: myst-nb executes them when the site
is built.  The option flags match ``doctest_default_flags`` in docs/conf.py so both runners agree.

Run with ``nox -s doctest`` (which also runs the docstring examples in src/attention).
"""

from __future__ import annotations

import doctest
from collections.abc import Iterable
from typing import Any

import torch
from sybil import Document, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.parsers.abstract import DocTestStringParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.myst import DocTestDirectiveParser

OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

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
        DocTestDirectiveParser(optionflags=OPTIONFLAGS),
        PythonDocTestFenceParser(optionflags=OPTIONFLAGS),
    ],
    patterns=["*.md"],
    excludes=["_build/*", "jupyter_execute/*", "_vendor/*", "**/README.md"],
    setup=_fresh_print_options,
    teardown=_fresh_print_options,
).pytest()
