r"""Check a module: parse it, run the interpreter over it, place each finding.

The file is parsed once with CPython's :mod:`ast`; the abstract interpreter
(:mod:`attention.review.interpreter`) evaluates every expression to what it is known to be and
asks the rules about each call that consumes a mask, scores or weights; the API knowledge it
asks with lives in :mod:`attention.review.sinks`.  A file whose text names none of the APIs the
rules watch is parsed (a syntax error is always reported) but not interpreted.

>>> findings = check_source("import torch.nn.functional as F\n"
...     "def f(q, k, v, ids, PAD):\n"
...     "    pad = ids == PAD\n"
...     "    return F.scaled_dot_product_attention(q, k, v, attn_mask=pad)\n")
>>> [(f.line, f.code) for f in findings]
[(4, 'AM101')]
>>> findings[0].inferred[0]
'`pad` is True = padding / masked out (line 3: `ids == PAD`)'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attention.review import apis
from attention.review.interpreter import Hit, Interpreter
from attention.review.links import cited_rows
from attention.review.project import NARROW_WORDS, Project
from attention.review.rules import by_code
from attention.review.syntax import (
    NestingError,
    Source,
    _short,
    bounded_recursion,
    check_syntax,
    parse,
)

BOM = "\ufeff"

__all__ = [
    "BOM",
    "KEYWORDS",
    "Finding",
    "LineNames",
    "check_source",
    "check_tree",
    "could_hold_finding",
]

LineNames = Callable[[int, int], str]
"""How a finding names another line of its module: ``(line, finding's line) -> "line 3"``.

A notebook's module names the lines of another cell by cell (``cell 2, line 3``)."""


def _line(line: int, _at: int) -> str:
    return f"line {line}"


KEYWORDS = (
    "softmax(",
    "Softmax(",
    "masked_fill",
    *dict.fromkeys(word for api in apis.APIS for word in api.words),
    "tril",
    "triu",
    "finfo",
    "repeat(",
)
"""A file holds a finding only if its text names one of these: a softmax, a fill, a triangle,
or an attention API by the words of its row in ``apis.py``."""


def could_hold_finding(text: str) -> bool:
    r"""Say whether the text names any API a rule watches: the cheap test before interpreting.

    >>> could_hold_finding("import os\nprint(os.sep)\n")
    False
    """
    return any(word in text for word in KEYWORDS)


@dataclass(frozen=True)
class Finding:
    """One finding: where, which rule, what was inferred from which line, what the API expects.

    ``end_line`` / ``end_column`` close the span of the code the finding is about (``end_column``
    1-based, exclusive, in characters); ``fix_code`` replaces that span where a fix is safe.
    In a notebook, ``cell`` is the cell's number (every cell counts, from 1), the lines count
    within it, and ``file_line`` is the line of the ``.ipynb`` file that holds ``line``.
    """

    path: str
    line: int
    column: int
    code: str
    subject: str
    expects: str
    inferred: tuple[str, ...]
    end_line: int
    fix_code: str | None = None
    end_column: int = 0
    span: tuple[int, int] | None = dataclasses.field(default=None, compare=False, repr=False)
    cell: int | None = None
    file_line: int | None = None
    rows: tuple[str, ...] = ()
    """The mask-table rows the finding rests on: its rule's, or, at another framework's API,
    that API's (:func:`~attention.review.links.cited_rows`)."""


def check_source(
    source: str,
    path: str = "<string>",
    project: Project | None = None,
    line_names: LineNames = _line,
) -> list[Finding]:
    """Every finding in ``source``, in order of position.

    A syntax error raises SyntaxError (as CPython reports it), code nested deeper than the parser
    or the checker reads raises :class:`~attention.review.syntax.NestingError`.  With
    ``project`` (the checked tree), helpers imported from the tree's other modules are followed
    (:mod:`attention.review.project`).
    """
    source = source.removeprefix(BOM)  # a byte-order mark is no part of the program
    if not could_hold_finding(source):
        check_syntax(source, filename=path)  # a syntax error is reported all the same
        return []
    with bounded_recursion():
        tree = parse(source, filename=path)
        try:
            return check_tree(Source(source, tree), path, project, line_names)
        except RecursionError:
            raise NestingError("nested deeper than the checker reads") from None


def check_tree(
    source: Source, path: str, project: Project | None = None, line_names: LineNames = _line
) -> list[Finding]:
    """Every finding in a parsed module."""
    interpreter = Interpreter(source, project, Path(path) if project is not None else None)
    interpreter.module(source.tree)
    hits: list[Hit] = interpreter.hits + list(interpreter.pending.values())
    hits = [hit for hit in hits if hit.narrow is None or _runs_in(hit.narrow, source, project)]
    findings = []
    seen: set[tuple[str, int]] = set()
    for hit in hits:
        line: int = hit.node.lineno  # type: ignore[attr-defined]
        if (hit.code, id(hit.node)) in seen or (hit.code, -line) in seen:
            # a helper read again with its caller's masks finds it once more; one rule says
            # its finding once per line
            continue
        seen.update({(hit.code, id(hit.node)), (hit.code, -line)})
        node = hit.node
        inferred = []
        for says, origin in hit.facts:
            at = origin.node.lineno  # type: ignore[attr-defined]
            across = f" ({origin.reason})" if origin.reason.startswith("returned by") else ""
            named = line_names(at, node.lineno)  # type: ignore[attr-defined]
            inferred.append(
                f"`{hit.subject}` is {says} ({named}: `{_short(source.code(origin.node))}`)"
                if origin.node is not node
                else f"`{hit.subject}` is {says}{across}"
            )
        start, end = source.span(node)
        end_line: int = node.end_lineno  # type: ignore[attr-defined]
        findings.append(
            Finding(
                path,
                node.lineno,  # type: ignore[attr-defined]
                source.column(node),
                hit.code,
                hit.subject,
                hit.expects,
                tuple(inferred),
                end_line,
                hit.fix,
                end - source.offset(end_line, 0) + 1,
                (start, end),
                rows=cited_rows(by_code(hit.code).rows, hit.rows),
            )
        )
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


def _runs_in(dtype: str, source: Source, project: Project | None) -> bool:
    r"""Whether the module or its tree runs in ``dtype`` (or narrower), as its text says.

    A fill of -1e9 is right in float32 and raises (or overflows to -inf) in float16, so a finding
    about a value a dtype cannot hold is a claim about the dtype: it is made only where the
    module, or another module of the checked tree, names that dtype
    (:data:`~attention.review.project.NARROW_WORDS`: ``torch.float16``, ``.half()``, an ``fp16``
    option, autocast).  Elsewhere the dtype is unknown and the checker says nothing.

    >>> fill = '''import torch
    ... def attend(q, k, forbidden):
    ...     scores = q @ k.transpose(-2, -1)
    ...     return torch.softmax(scores.masked_fill(forbidden, -1e9), dim=-1)
    ... '''
    >>> [f.code for f in check_source(fill)], [f.code for f in check_source(fill + "# --fp16\n")]
    ([], ['AM202'])
    """
    if NARROW_WORDS[dtype].search(source.text) is not None:
        return True
    return project is not None and project.runs_in(dtype)
