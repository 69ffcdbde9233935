r"""The checker as a flake8 plugin: ``flake8 --select AM`` reports the same findings.

flake8 finds it through the ``flake8.extension`` entry point ``AM``; it handles ``# noqa``
itself.  Severity, inferences and row links stay with ``python -m attention.review``.

>>> source = "import torch\ndef f(s, mask):\n    return s.masked_fill(mask, -1e9)\n"
>>> [item[:3] for item in Plugin(None, source.splitlines(True), "m.py").run()]
[(3, 31, 'AM202 `-1e9` does not fit in float16; under autocast or .half() this fill fails')]
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import attention
from attention.review.check import check_source
from attention.review.rules import by_code

__all__ = ["Plugin"]


class Plugin:
    """flake8's view of the checker: one ``(line, column, "CODE message", type)`` per finding."""

    name = "attention-review"
    version = attention.__version__

    def __init__(self, tree: ast.AST | None, lines: Sequence[str], filename: str = "stdin") -> None:
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type[Plugin]]]:
        """Yield every finding; a file CPython cannot parse is left to flake8's own E999."""
        try:
            findings = check_source("".join(self.lines), self.filename)
        except SyntaxError:
            return
        for finding in findings:
            rule = by_code(finding.code)
            message = rule.message.format(subject=finding.subject)
            yield finding.line, finding.column - 1, f"{finding.code} {message}", type(self)
