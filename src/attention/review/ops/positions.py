"""Positions: ``arange`` rows and columns compared into a mask (``i >= j`` is causal)."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attention.review import ops
from attention.review.provenance import (
    CAUSAL,
    Mask,
    Meaning,
    Origin,
    Triangle,
    meaning_named,
)
from attention.review.syntax import (
    _whole,
    int_literal,
    is_none,
    last_name,
)
from attention.review.values import (
    AnyValue,
    Positions,
    Relative,
    Tensor,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


_COMPARISONS: dict[str, type[ast.cmpop]] = {
    "lt": ast.Lt,
    "le": ast.LtE,
    "gt": ast.Gt,
    "ge": ast.GtE,
    "less": ast.Lt,
    "less_equal": ast.LtE,
    "greater": ast.Gt,
    "greater_equal": ast.GtE,
}
"""Tensor methods that compare, as the operator they stand for."""


_MIRRORED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
}
"""``a < b`` is ``b > a``."""


_TRIANGLES: dict[type[ast.cmpop], Triangle] = {
    ast.GtE: Triangle(True, 0),  # i >= j: tril
    ast.Gt: Triangle(True, -1),  # i > j: tril(-1)
    ast.LtE: Triangle(False, 0),  # i <= j: triu
    ast.Lt: Triangle(False, 1),  # i < j: triu(1), the future
}
"""Where ``rows OP cols`` (query position OP key position) is True."""


_KEEPS_POSITIONS = frozenset(
    (
        *("to", "cuda", "cpu", "long", "int", "contiguous", "clone", "detach", "type_as"),
        *("expand", "expand_as", "repeat"),
    )
)
"""Methods that leave which axis the positions lie on as it was."""


def _positions_subscript(
    positions: Positions, elements: Sequence[ast.expr], node: ast.AST
) -> Positions | None:
    """Positions subscripted: which axis they are on now.

    ``i[None, :]`` / ``i[None]``: on the key axis; ``i[:, None]`` / ``i[..., None]``: on
    the query axis; ``i[:n]``: still flat (``i[1:]`` shifted by one).  Anything else: unknown.
    """
    if not positions.flat:
        return None
    origin = Origin(node, "")
    if len(elements) == 1 and isinstance(elements[0], ast.Slice) and elements[0].step is None:
        start = elements[0].lower
        shift = 0 if start is None else int_literal(start)
        offset = None if shift is None or positions.offset is None else positions.offset + shift
        return dataclasses.replace(positions, origin=origin, offset=offset)
    if len(elements) == 1 and is_none(elements[0]):
        return Positions(origin, "cols", positions.offset)
    if len(elements) == 2 and is_none(elements[0]) and _whole(elements[1]):
        return Positions(origin, "cols", positions.offset)
    if (
        len(elements) == 2
        and is_none(elements[1])
        and (
            _whole(elements[0])
            or (isinstance(elements[0], ast.Constant) and elements[0].value is Ellipsis)
        )
    ):
        return Positions(origin, "rows", positions.offset)
    return None


def _shifted(
    left: object,
    right: object,
    operator: ast.operator,
    left_node: ast.AST,
    right_node: ast.AST,
    origin: Origin,
) -> Positions | Relative | None:
    """``i + 3``, ``i - offset``: the same positions, moved.

    By an unknown amount if the shift is no integer literal.
    """
    if isinstance(operator, ast.FloorDiv) and isinstance(left, Positions):
        # i // chunk: a block's index, compared as positions; no triangle is known of it
        return dataclasses.replace(left, origin=origin, offset=None)
    if not isinstance(operator, (ast.Add, ast.Sub)):
        return None
    if isinstance(left, Positions) and isinstance(right, Positions):
        if isinstance(operator, ast.Sub) and left.axis != right.axis:
            return Relative(origin, left, right)  # j - i: how far a key is from its query
        return None
    positions, other = (left, right_node) if isinstance(left, Positions) else (right, left_node)
    assert isinstance(positions, Positions)
    if isinstance(operator, ast.Sub) and positions is right:
        return None  # n - i counts down
    shift = int_literal(other)
    offset = None
    if shift is not None and positions.offset is not None:
        offset = positions.offset + (shift if isinstance(operator, ast.Add) else -shift)
    return dataclasses.replace(positions, origin=origin, offset=offset)


def _column_base(node: ast.AST) -> ast.AST:
    """The tensor that ``x[:, None]`` / ``x.unsqueeze(1)`` / ``x.view(-1, 1)`` makes a column."""
    if isinstance(node, ast.Subscript):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value
    return node


def _a_column(node: ast.AST) -> bool:
    """One value per batch item on a new trailing axis.

    ``lengths[:, None]``, ``lengths.unsqueeze(1)`` (or ``-1``), ``lengths.view(-1, 1)``.
    """
    if isinstance(node, ast.Subscript):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return len(elements) == 2 and is_none(elements[1]) and _whole(elements[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        sizes = [int_literal(arg) for arg in node.args]
        if node.keywords:
            return False
        if ops.moves(node.func.attr, "insert"):
            return sizes in ([1], [-1])
        if ops.moves(node.func.attr, "reshape"):
            return sizes == [-1, 1]
    return False


PAIRWISE = "one per-position mask on both the query and the key axis"
"""The reason of a mask row left empty by :meth:`Interpreter.pairwise` (not by one index)."""


def positions_method(
    ev: Interpreter,
    positions: Positions,
    method: str,
    node: ast.Call,
    values: list[AnyValue | None],
) -> AnyValue | None:
    """``i.unsqueeze(-1)``, ``i.expand(B, -1)``, ``i.lt(n)``: moved, kept, compared."""
    args = ev.args(node)
    if method in _COMPARISONS and len(args) == 1:
        assert isinstance(node.func, ast.Attribute)
        return positions_compared(
            ev, node, (positions, node.func.value), (values[0], args[0].value), _COMPARISONS[method]
        )
    if method in _KEEPS_POSITIONS:
        return dataclasses.replace(
            positions,
            origin=Origin(node, ""),
            flat=positions.flat and not ops.moves(method, "broadcast", "tile"),
        )
    if not positions.flat or len(args) not in (1, 2):
        return None
    sizes = [int_literal(arg.value) for arg in args]
    if method == "unsqueeze" and sizes in ([1], [-1]):
        return Positions(Origin(node, ""), "rows", positions.offset)
    if method == "unsqueeze" and sizes == [0]:
        return Positions(Origin(node, ""), "cols", positions.offset)
    if ops.moves(method, "reshape") and sizes == [-1, 1]:
        return Positions(Origin(node, ""), "rows", positions.offset)
    if ops.moves(method, "reshape") and sizes == [1, -1]:
        return Positions(Origin(node, ""), "cols", positions.offset)
    return None


def relative_compared(
    ev: Interpreter,
    node: ast.Compare,
    left: AnyValue | None,
    right: AnyValue | None,
    right_node: ast.AST,
    operator: type[ast.cmpop],
) -> Mask | None:
    """``rel < 0`` of ``rel = j - i``: ``j < i + 0``, read as positions compared."""
    if isinstance(right, Relative):
        left, right = right, left
        operator = _MIRRORED.get(operator, operator)
        right_node = node.left
    if not isinstance(left, Relative) or isinstance(right, Relative):
        return None
    bound = int_literal(right_node)
    offset = None if bound is None or left.minus.offset is None else left.minus.offset + bound
    shifted = dataclasses.replace(left.minus, offset=offset)
    return positions_compared(ev, node, (left.plus, node), (shifted, node), operator)


def positions_compared(
    ev: Interpreter,
    node: ast.AST,
    left_side: tuple[AnyValue | None, ast.AST],
    right_side: tuple[AnyValue | None, ast.AST],
    operator: type[ast.cmpop],
) -> Mask | None:
    """A comparison of positions: a triangle, or a ``[B, S]`` mask of lengths.

    ``i[:, None] >= i[None, :]`` is True on and below the diagonal (``tril``), with the
    literal offsets on either side moving the diagonal (an offset that is no literal
    leaves the triangle unknown).  ``torch.arange(S)[None, :] < lengths[:, None]`` is a
    Boolean ``[B, S]`` key mask, True on the first ``lengths[b]`` keys: where the other
    side is named for a length (not a padding count), that is True = may attend, and
    ``>=`` True = padding.  Against a number or a tensor not made a column, the same
    meaning, its rank unknown.
    """
    origin = Origin(node, "a comparison of positions")
    if not isinstance(left_side[0], Positions):
        left_side, right_side = right_side, left_side
        operator = _MIRRORED.get(operator, operator)
    left, right = left_side[0], right_side[0]
    right_node = right_side[1]
    assert isinstance(left, Positions)
    if isinstance(right, Positions):
        if {left.axis, right.axis} != {"rows", "cols"}:
            return None
        if left.axis == "cols":
            left, right = right, left
            operator = _MIRRORED.get(operator, operator)
        base = _TRIANGLES.get(operator)
        if base is None or left.offset is None or right.offset is None:
            return Mask("mask", origin, "bool", ndim=2)
        shift = left.offset - right.offset
        triangle = Triangle(lower=base.lower, diagonal=base.diagonal + shift)
        if shift and triangle not in (CAUSAL, CAUSAL.complement()):
            # a window written on purpose (`t[:, None] + 1 >= t`: one frame of look-ahead)
            return Mask("mask", origin, "bool", ndim=2)
        return Mask("mask", origin, "bool", true_set=triangle, triangle_at=origin, ndim=2)
    if left.axis != "cols":
        return None
    column = _a_column(right_node)
    name = (last_name(_column_base(right_node)) or "").lower()
    meaning: Meaning | None = None
    counts_keys = "len" in name and meaning_named(name) is None
    if counts_keys and not re.search("pad|mask", name) and not left.offset:
        meaning = {ast.Lt: "allowed", ast.GtE: "forbidden"}.get(operator)  # type: ignore[assignment]
    if column:
        return Mask("mask", origin, "bool", meaning=meaning, key_padding=True, ndim=2)
    # against one number (`torch.arange(S) < seq_len`) or a tensor of a shape not shown:
    # a Boolean mask of the keys, its rank unknown
    return Mask("mask", origin, "bool", meaning=meaning)


def rows_joined(ev: Interpreter, node: ast.Call, parts: list[AnyValue | None]) -> Mask | None:
    """``torch.cat([mask, torch.zeros(1, S, dtype=torch.bool)])``: whole rows of one value.

    A 2-D block of zeros (or ones) joined to a mask along its first axis adds rows that
    hold one value on every key, as ``m[2, :] = False`` does (pytorch#103749).  Only a
    block whose two sizes are written and whose dtype is the mask's.
    """
    masks = [part for part in parts if isinstance(part, Mask) and part.kind == "mask"]
    if len(masks) != 1 or any(part is None for part in parts):
        return None
    mask = masks[0]
    block: tuple[ast.AST, float] | None = None
    for part in parts:
        if part is mask:
            continue
        if not (
            isinstance(part, Tensor)
            and part.zero_one
            and part.sizes is not None
            and len(part.sizes) == 2
            and part.dtype is not None
            and part.dtype == (mask.dtype or "bool")
            and isinstance(part.origin.node, ast.Call)
        ):
            return None
        short = (ev.qualname(part.origin.node.func) or "").rsplit(".", 1)[-1]
        if short not in ("zeros", "ones"):
            return None
        value = 0.0 if short == "zeros" else 1.0
        if block is not None and block[1] != value:
            return None
        block = block or (part.origin.node, value)
    if block is None:
        return None
    origin = Origin(block[0], "rows of one value joined to the mask, every key")
    return mask.but(
        origin=Origin(node, ""),
        true_set=None,
        triangle_at=None,
        ndim=2,
        empty_row=origin,
        row_value=block[1],
    )
