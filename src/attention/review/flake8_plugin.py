r"""The checker as a flake8 plugin: ``flake8 --select AM`` reports the same findings.

flake8 finds it through the ``flake8.extension`` entry point ``AM``.  It reads what
``python -m attention.review`` reads: the nearest configuration above the file
(``attention-review.toml`` or ``[tool.attention-review]`` in ``pyproject.toml``: ``select``,
``ignore``, ``per-file-ignores``) and the same comments (``# attention: ignore[AM101]``,
``# noqa: AM101``), so both report the same findings.  A configuration it cannot read, or code
nested deeper than the checker reads, is one ``AM000`` finding on line 1, with the reason.
Severity, inferences and row links stay with ``python -m attention.review``.

>>> source = "import torch\ndef f(s, mask):  # fp16\n    return s.masked_fill(mask, -1e9)\n"
>>> [item[:3] for item in Plugin(None, source.splitlines(True), "m.py").run()]
[(3, 31, 'AM202 `-1e9` does not fit in float16; under autocast or .half() this fill fails')]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

import attention
from attention.review.check import check_source
from attention.review.config import ConfigError, Configs
from attention.review.rules import by_code
from attention.review.syntax import NestingError

__all__ = ["Plugin"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Item = tuple[int, int, str, type["Plugin"]]


class Plugin:
    """flake8's view of the checker: one ``(line, column, "CODE message", type)`` per finding."""

    name = "attention-review"
    version = attention.__version__

    def __init__(self, tree: ast.AST | None, lines: Sequence[str], filename: str = "stdin") -> None:
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[Item]:
        """Yield every finding; a file CPython cannot parse is left to flake8's own E999."""
        path = "-" if self.filename in ("stdin", "-") else self.filename
        try:
            config = Configs().for_path(path)
        except ConfigError as error:
            yield 1, 0, f"AM000 configuration not read, file not checked: {error}", type(self)
            return
        source = "".join(self.lines)
        try:
            findings = check_source(source, self.filename)
        except SyntaxError:
            return
        except NestingError as error:
            yield 1, 0, f"AM000 {error}, not checked", type(self)
            return
        lines = _LINE_BREAK.split(source)
        for finding in findings:
            if not config.keeps(finding, lines):
                continue
            rule = by_code(finding.code)
            message = rule.message.format(subject=finding.subject)
            yield finding.line, finding.column - 1, f"{finding.code} {message}", type(self)
