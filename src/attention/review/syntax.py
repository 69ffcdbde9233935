r"""The syntax the checker reads: CPython's :mod:`ast`, its positions and its source text.

The checker parses each file once with :func:`parse` (CPython's :func:`ast.parse`, about ten
times faster than a concrete syntax tree, and it has every position a finding needs).
:class:`Source` gives the text of a node and its position in characters (``ast`` counts columns
in UTF-8 bytes); :func:`call_args` lists a call's arguments in the order they are written, each
with its keyword.

Parsing and reading a tree recurse as deep as the code nests.  CPython stops its parser with an
exception (``SyntaxError`` past 200 nested brackets, ``MemoryError`` past its parser's stack,
``RecursionError`` while it builds the tree), but how deep it builds the tree depends on the
recursion limit of the process: where a host program (a linter, a test runner) has raised the
limit, ``ast.parse`` recurses as deep as the expression and overflows the C stack, a
segmentation fault (300,000 terms of ``a + a + …`` on CPython 3.11).  :func:`bounded_recursion`
holds the limit to :data:`FRAMES` frames above the caller while the checker parses and reads,
so every such file ends in :class:`NestingError` instead.

>>> source = Source("x = f(a, *rest, dim=-1)\n")
>>> call = source.tree.body[0].value
>>> [(arg.keyword, arg.star, source.code(arg.value)) for arg in call_args(call)]
[(None, '', 'a'), (None, '*', 'rest'), ('dim', '', '-1')]
>>> int_literal(call_args(call)[2].value)
-1
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "FRAMES",
    "Arg",
    "NestingError",
    "Source",
    "bounded_recursion",
    "call_args",
    "check_syntax",
    "has_division",
    "int_literal",
    "is_false",
    "is_none",
    "is_true",
    "last_name",
    "names_in",
    "parse",
    "string_literal",
]

FRAMES = 1000
"""How many frames deeper than its caller the checker may recurse: CPython's default limit."""


class NestingError(Exception):
    """The code nests deeper than CPython's parser or the checker reads (a message says which)."""


@contextlib.contextmanager
def bounded_recursion(frames: int = FRAMES) -> Iterator[None]:
    """Hold the recursion limit to ``frames`` frames above the caller (never raise it).

    >>> import sys
    >>> before = sys.getrecursionlimit()
    >>> sys.setrecursionlimit(10**6)
    >>> with bounded_recursion():
    ...     sys.getrecursionlimit() < 10**6
    True
    >>> sys.getrecursionlimit() == 10**6
    True
    >>> sys.setrecursionlimit(before)
    """
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    limit = sys.getrecursionlimit()
    bound = min(limit, depth + frames)
    if bound != limit:
        sys.setrecursionlimit(bound)
    try:
        yield
    finally:
        if bound != limit:
            sys.setrecursionlimit(limit)


def parse(text: str, filename: str = "<string>") -> ast.Module:
    r"""``text`` parsed by CPython.

    SyntaxError where CPython reports one, NestingError past its parser's limits.

    >>> parse("x = " + "-" * 100_000 + "1")
    Traceback (most recent call last):
    ...
    attention.review.syntax.NestingError: nested deeper than CPython's parser reads (...)
    """
    with bounded_recursion(), warnings.catch_warnings():
        # the checked file's invalid escapes and `is` with a literal (Python 3.12 and later warn
        # while parsing) are its own business, not the checker's output
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text, filename=filename)
        except (RecursionError, MemoryError) as error:
            raise NestingError(
                f"nested deeper than CPython's parser reads ({type(error).__name__})"
            ) from None
        except ValueError as error:  # NUL bytes, on the CPython releases that raise this
            line = text.count("\n", 0, max(text.find("\0"), 0)) + 1
            raise SyntaxError(str(error), (filename, line, 1, None)) from None


def check_syntax(text: str, filename: str = "<string>") -> None:
    r"""Raise what :func:`parse` raises for ``text``, without building its syntax tree.

    Compiling to bytecode makes no Python objects of the tree, which is most of what parsing a
    module costs (about half the time on torch's sources); where the compiler refuses what the
    parser accepts (``return`` outside a function, an unknown ``__future__`` feature) or stops
    on its own limits, :func:`parse` decides.

    >>> check_syntax("x = (1,\n")
    Traceback (most recent call last):
    ...
    SyntaxError: '(' was never closed
    >>> check_syntax("return 1")  # the parser accepts it: so does the checker
    """
    with bounded_recursion():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escapes, `is` with a literal
                compile(text, filename, "exec", dont_inherit=True)
        except Exception:  # SyntaxError, RecursionError, MemoryError, ValueError (NUL bytes)
            pass
        else:
            return
    parse(text, filename)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Source:
    r"""A module's text and its syntax tree: node texts and positions in characters.

    Lines are split where CPython's tokenizer splits them (``\n``, ``\r\n``, ``\r``), not at
    form feeds or Unicode line separators, so line numbers match the tree's.
    """

    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        self.text = text
        self.tree = tree if tree is not None else parse(text)
        self._starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
        self._encoded: dict[int, bytes] = {}

    def _line_bytes(self, line: int) -> bytes:
        found = self._encoded.get(line)
        if found is None:
            start = self._starts[line - 1]
            end = self._starts[line] if line < len(self._starts) else len(self.text)
            found = self._encoded[line] = self.text[start:end].encode("utf-8")
        return found

    def offset(self, line: int, byte_column: int) -> int:
        """The index in :attr:`text` of a position given as ``ast`` gives it."""
        start = self._starts[line - 1]
        encoded = self._line_bytes(line)
        if encoded.isascii():
            return start + byte_column
        return start + len(encoded[:byte_column].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The node's text as indices ``[start, end)`` into :attr:`text`."""
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = node.end_lineno  # type: ignore[attr-defined]
        end_column = node.end_col_offset  # type: ignore[attr-defined]
        return start, self.offset(end_line, end_column)

    def code(self, node: ast.AST) -> str:
        """The node's source text, as written."""
        start, end = self.span(node)
        return self.text[start:end].strip()

    def column(self, node: ast.AST) -> int:
        """The node's first column, 1-based, in characters."""
        line: int = node.lineno  # type: ignore[attr-defined]
        return self.offset(line, node.col_offset) - self._starts[line - 1] + 1  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Arg:
    """One argument of a call: its value, its keyword (None when positional), ``*`` or ``**``."""

    value: ast.expr
    keyword: str | None = None
    star: str = ""


def call_args(node: ast.Call) -> list[Arg]:
    """The call's arguments in written order: positional (and ``*args``) first, then keywords."""
    found = [
        Arg(arg.value, None, "*") if isinstance(arg, ast.Starred) else Arg(arg) for arg in node.args
    ]
    found.extend(
        Arg(keyword.value, keyword.arg, "" if keyword.arg else "**") for keyword in node.keywords
    )
    return found


def int_literal(node: ast.AST | None) -> int | None:
    """An integer written as a literal (``3``, ``-1``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def string_literal(node: ast.AST | None) -> str | None:
    """A string written as a literal, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def is_true(node: ast.AST | None) -> bool:
    """Whether the node is the literal ``True``."""
    return isinstance(node, ast.Constant) and node.value is True


def is_false(node: ast.AST | None) -> bool:
    """Whether the node is the literal ``False``."""
    return isinstance(node, ast.Constant) and node.value is False


def is_none(node: ast.AST | None) -> bool:
    """Whether the node is the literal ``None``."""
    return isinstance(node, ast.Constant) and node.value is None


def last_name(node: ast.AST) -> str | None:
    """``x`` of ``x`` and of ``a.b.x``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def names_in(node: ast.AST) -> list[str]:
    """Every name and attribute in the node, in written order (``self.dim`` gives dim, self)."""
    return list(_names(node))


def _names(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
        yield from _names(node.value)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _names(child)


def has_division(node: ast.AST) -> bool:
    """Whether the node divides anywhere (``/`` or ``//``)."""
    return any(
        isinstance(inner, ast.BinOp) and isinstance(inner.op, (ast.Div, ast.FloorDiv))
        for inner in ast.walk(node)
    )


def factors(node: ast.AST) -> list[ast.AST]:
    """The factors of a product written with ``*`` (the node itself otherwise)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return [*factors(node.left), *factors(node.right)]
    return [node]


def identifiers(node: ast.AST) -> set[str]:
    """Every name, attribute and parameter a node's code uses (no comment, no string)."""
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
        elif isinstance(inner, ast.arg):
            found.add(inner.arg)
    return found


def _whole(element: ast.AST) -> bool:
    """``:``, a whole axis."""
    return (
        isinstance(element, ast.Slice)
        and element.lower is None
        and element.upper is None
        and element.step is None
    )


def _unsqueezed_pair(
    left: ast.AST, right: ast.AST, rank: int | None
) -> set[tuple[str, str] | None]:
    """``m.unsqueeze(2) & m.unsqueeze(1)``: new axes at a and a - 1 of one tensor.

    Of a ``[B, N]`` mask the higher one puts the positions on the query axis (``[B, N, 1]``),
    the lower one on the key axis (``[B, 1, N]``).  ``rank``: m's, where known; the higher
    axis must be it (``unsqueeze(2)`` of a 3-D mask is no query axis).
    """
    left_view, right_view = _unsqueezed(left), _unsqueezed(right)
    if left_view is None or right_view is None:
        return {None}
    (one, first), (other, second) = left_view, right_view
    if min(first, second) < 1 or one != other or abs(first - second) != 1:
        return {None}
    if rank not in (None, max(first, second)):
        return {None}
    return {
        (one, "query" if first > second else "key"),
        (other, "query" if second > first else "key"),
    }


def _unsqueezed(node: ast.AST) -> tuple[str, int] | None:
    """``m.unsqueeze(a)`` of a name with a literal axis: m's text and a."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "unsqueeze"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.func.value, (ast.Name, ast.Attribute))
    ):
        return None
    axis = int_literal(node.args[0])
    return (ast.unparse(node.func.value), axis) if axis is not None else None


def _pair_sides(left: ast.AST, right: ast.AST, rank: int | None) -> set[tuple[str, str] | None]:
    """The two views of ``left & right``, each with the axis it puts the positions on."""
    sides = {_pair_side(left), _pair_side(right)}
    return _unsqueezed_pair(left, right, rank) if None in sides else sides


def _pair_side(node: ast.AST) -> tuple[str, str] | None:
    """Which axis a view of a per-position mask puts its positions on, and of which tensor.

    ``(base, "query")`` for ``m[..., :, None]`` / ``m.unsqueeze(-1)``; ``"key"`` for
    ``m[..., None, :]`` / ``m.unsqueeze(-2)``; under ``~`` the base is ``~m``; None for
    anything else.
    """
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        inner = _pair_side(node.operand)
        return (f"~{inner[0]}", inner[1]) if inner is not None else None
    unsqueezed = _unsqueezed(node)
    if unsqueezed is not None:
        side = {-1: "query", -2: "key"}.get(unsqueezed[1])
        return (unsqueezed[0], side) if side else None
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, (ast.Name, ast.Attribute))
        and isinstance(node.slice, ast.Tuple)
        and len(node.slice.elts) >= 2
    ):
        return None
    elements = node.slice.elts
    if not all(
        _whole(element)
        or is_none(element)
        or (isinstance(element, ast.Constant) and element.value is Ellipsis)
        for element in elements
    ):
        return None
    before, last = elements[-2], elements[-1]
    if is_none(last) and not is_none(before):
        return ast.unparse(node.value), "query"
    if _whole(last) and is_none(before):
        return ast.unparse(node.value), "key"
    return None


def _short(code: str, limit: int = 60) -> str:
    one = " ".join(code.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
"""A function's definition, ``def`` or ``async def``."""


def _inside(node: ast.AST, function: FunctionNode | ast.ClassDef) -> bool:
    """Whether a node lies in a function's (or class's) body (a caller's line does not)."""
    line: int = node.lineno  # type: ignore[attr-defined]
    return function.lineno <= line <= (function.end_lineno or function.lineno)


def last_axis_added(node: ast.AST) -> bool:
    """``pad.unsqueeze(-1)``, ``pad[..., None]`` (also under ``~``): a new last axis of size 1.

    A mask written so has one entry per position and is the same along the tensor's last axis:
    it fills whole rows (a padded token's hidden state, a padded query's scores), never some
    keys of a row.
    """
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "unsqueeze" and node.args:
            return ast.unparse(node.args[-1]) == "-1"
        return False
    if isinstance(node, ast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return bool(parts) and isinstance(parts[-1], ast.Constant) and parts[-1].value is None
    return False
