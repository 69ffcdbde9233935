"""Triangles: ``tril`` / ``triu`` (and their index forms) of a mask, and which entries they keep."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review.events import TriangleCut, emit
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Mask,
    Origin,
    Triangle,
)
from attention.review.sinks import (
    PENALTY,
)
from attention.review.syntax import (
    int_literal,
)
from attention.review.values import (
    AnyValue,
    Dim,
    Tensor,
    TriangleIndex,
    TupleValue,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def _frees_the_diagonal(*terms: Mask) -> bool:
    """Whether a term penalises only strictly above (or below) the diagonal: a causal mask.

    Its diagonal stays finite in the sum, so no row becomes all -inf and the softmax stays finite.
    """
    for term in terms:
        penalised = term.true_set
        if penalised is not None and (
            (not penalised.lower and penalised.diagonal >= 1)
            or (penalised.lower and penalised.diagonal <= -1)
        ):
            return True
    return False


def triangle(
    ev: Interpreter,
    node: ast.Call,
    qualified: str | None,
    receiver: AnyValue | None,
    values: list[AnyValue | None],
) -> AnyValue | None:
    """``tril`` / ``triu``: a triangular mask and its diagonal."""
    func = node.func
    lower = (qualified or "").endswith("tril") or (
        isinstance(func, ast.Attribute) and func.attr.startswith("tril")
    )
    source = receiver
    if qualified is not None:
        source = values[0] if values else None
    diagonal = diagonal_of(ev, node)
    if diagonal is None:
        return None
    dtype = source.dtype if isinstance(source, Tensor) else None
    if "bool" in ev.code(node):
        dtype = "bool"
    if isinstance(source, Tensor) and source.sizes and len(source.sizes) >= 2:
        emit(ev, TriangleCut(node, source.sizes[-2], source.sizes[-1], diagonal, lower=lower))
    triangle = Triangle(lower=lower, diagonal=diagonal)
    name = "tril" if lower else "triu"
    if (
        isinstance(source, Tensor)
        and source.holds is not None
        and (source.holds.value <= PENALTY or source.holds.finfo)
    ):
        # torch.full(shape, -inf).triu(1): a triangle of penalties, an additive mask
        source = Mask(
            "additive",
            source.origin,
            dtype="float",
            finfo_terms=int(source.holds.finfo),
            wide=source.wide,
        )
    if isinstance(source, Mask) and source.kind == "additive":
        return source.but(true_set=triangle, origin=Origin(node, ""), triangle_at=Origin(node, ""))
    origin = Origin(node, f"{name}(…, diagonal={diagonal})")
    return Mask("mask", origin, dtype=dtype, true_set=triangle, triangle_at=origin)


def diagonal_argument(ev: Interpreter, node: ast.AST) -> ast.AST | None:
    """The diagonal argument of a ``tril`` / ``triu`` / ``tri*_indices`` call, if written."""
    if not isinstance(node, ast.Call):
        return None
    args = ev.args(node)
    positional = [arg for arg in args if arg.keyword is None and not arg.star]
    qualified = ev.qualname(node.func) or ""
    keyword, first = "diagonal", 1 if qualified else 0  # torch.triu(x, d) / x.triu(d)
    if qualified.endswith("_indices"):
        keyword, first = "offset", 2  # torch.triu_indices(L, S, offset)
    for arg in args:
        if arg.keyword == keyword:
            return arg.value
    return positional[first].value if len(positional) > first else None


def diagonal_of(ev: Interpreter, node: ast.Call) -> int | None:
    """A triangle call's diagonal: 0 where none is written, None where it is not a literal."""
    written = diagonal_argument(ev, node)
    return 0 if written is None else int_literal(written)


def triangle_indices(ev: Interpreter, node: ast.Call, lower: bool) -> TupleValue | None:
    """``torch.triu_indices(L, S, offset)``: the rows and the columns of a triangle."""
    offset = diagonal_of(ev, node)
    if offset is None:
        return None
    origin = Origin(node, f"{'tril' if lower else 'triu'}_indices(…, offset={offset})")
    triangle = Triangle(lower=lower, diagonal=offset)
    return TupleValue(
        origin, (TriangleIndex(origin, triangle, 0), TriangleIndex(origin, triangle, 1))
    )


def indexed_triangle(ev: Interpreter, index: ast.AST) -> Mask | None:
    """``x[..., rows, cols]`` with a triangle's rows and columns: that triangle as a mask."""
    if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
        return None
    *leading, rows_node, cols_node = index.elts
    if not all(
        (isinstance(element, ast.Slice) and element.lower is element.upper is element.step is None)
        or (isinstance(element, ast.Constant) and element.value is Ellipsis)
        for element in leading
    ):
        return None
    rows, cols = ev.ev(rows_node), ev.ev(cols_node)
    if not (
        isinstance(rows, TriangleIndex)
        and isinstance(cols, TriangleIndex)
        and rows.origin.node is cols.origin.node
        and {rows.axis, cols.axis} == {0, 1}
    ):
        return None
    triangle = rows.triangle
    if rows.axis == 1:  # x[..., cols, rows]: the transposed triangle
        triangle = Triangle(not triangle.lower, -triangle.diagonal)
    return Mask("mask", rows.origin, dtype="bool", true_set=triangle, triangle_at=rows.origin)


def corner_cut(
    ev: Interpreter, triangle: Triangle, rows: ast.AST, columns: ast.AST, node: ast.AST
) -> None:
    """``bias[:, :, :T, :S]``: a triangle cut from its top-left corner, laid on T × S there."""
    cuts = []
    for element in (rows, columns):
        if not (
            isinstance(element, ast.Slice)
            and element.lower is None
            and element.step is None
            and element.upper is not None
        ):
            return
        cuts.append(ev.ev(element.upper))
    height, width = cuts
    if isinstance(height, Dim) and isinstance(width, Dim):
        emit(ev, TriangleCut(node, height, width, triangle.diagonal, lower=triangle.lower))


@operation("triu", "tril", "triu_", "tril_")
def triangle_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.tril`` / ``triu`` and their methods: which entries a mask keeps."""
    node, values, qualified, method, short, receiver = (
        c.node,
        c.values,
        c.qualified,
        c.method,
        c.short,
        c.receiver,
    )
    if short in ("triu", "tril") or method in ("triu", "tril", "triu_", "tril_"):
        return triangle(ev, node, qualified, receiver, values)
    return NOT_MINE


@operation("triu_indices", "tril_indices")
def triangle_indices_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.tril_indices`` / ``triu_indices``: the indices of a triangle."""
    node, qualified = c.node, c.qualified
    if qualified in ("torch.triu_indices", "torch.tril_indices"):
        return triangle_indices(ev, node, qualified.endswith("tril_indices"))
    return NOT_MINE


@operation("generate_square_subsequent_mask", "_generate_square_subsequent_mask")
def square_subsequent_mask(ev: Interpreter, c: Call) -> Reading:
    """``generate_square_subsequent_mask(L)``: 0 on and below the diagonal, -inf above."""
    node, method, short = c.node, c.method, c.short
    if (short is not None and short.endswith("generate_square_subsequent_mask")) or (
        method == "generate_square_subsequent_mask"
    ):
        return Mask(
            "additive",
            Origin(node, "0 on and below the diagonal, -inf above"),
            dtype="float",
            true_set=Triangle(lower=False, diagonal=1),
        )
    return NOT_MINE
