"""Comparisons: `ids == pad`, `i >= j` of positions, `m == 0` of a 0/1 mask, as masks."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review.ops import (
    positions,
)
from attention.review.ops.arithmetic import (
    _pairwise,
)
from attention.review.provenance import (
    Const,
    Mask,
    Meaning,
    Origin,
)
from attention.review.syntax import (
    last_name,
)
from attention.review.values import (
    AnyValue,
    Positions,
    Relative,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def comparison(ev: Interpreter, node: ast.Compare) -> AnyValue | None:
    """``ids == pad``, ``mask == 0``, ``mask > 0``: a Boolean mask and its meaning."""
    left = ev.ev(node.left)
    rights = [ev.ev(comparator) for comparator in node.comparators]
    if len(node.ops) != 1:
        return None
    operator = node.ops[0]
    right_node = node.comparators[0]
    right = rights[0]
    if isinstance(left, Relative) or isinstance(right, Relative):
        return positions.relative_compared(ev, node, left, right, right_node, type(operator))
    if isinstance(left, Positions) or isinstance(right, Positions):
        return positions.positions_compared(
            ev, node, (left, node.left), (right, right_node), type(operator)
        )
    equal = isinstance(operator, ast.Eq)
    unequal = isinstance(operator, ast.NotEq)
    if (equal or unequal) and left is None and right is None and _pairwise(node.left, right_node):
        # seg[:, :, None] != seg[:, None, :]: a [B, L, L] Boolean mask (a document or
        # segment mask), whose meaning the API it reaches decides
        rank = (
            len(node.left.slice.elts)
            if isinstance(node.left, ast.Subscript) and isinstance(node.left.slice, ast.Tuple)
            else None
        )
        return Mask("mask", Origin(node, "a pairwise comparison"), dtype="bool", ndim=rank)
    if equal or unequal:
        for side in (node.left, right_node):
            name = last_name(side)
            if name is not None and "pad" in name.lower():
                meaning: Meaning = "forbidden" if equal else "allowed"
                return Mask(
                    "mask",
                    Origin(node, ""),
                    dtype="bool",
                    meaning=meaning,
                    key_padding=True,
                    ndim=2,
                )
    if (
        isinstance(left, Mask)
        and left.kind == "mask"
        and isinstance(right, Const)
        and right.value in (0.0, 1.0)
    ):
        flip = (equal and right.value == 0.0) or (unequal and right.value == 1.0)
        keep = (equal and right.value == 1.0) or (unequal and right.value == 0.0)
        keep = keep or (isinstance(operator, ast.Gt) and right.value == 0.0)
        if flip:
            return left.flipped(Origin(node, "")).but(dtype="bool")
        if keep:
            return left.but(dtype="bool", origin=Origin(node, ""), hf=False)
    if isinstance(left, Mask) and left.kind == "additive" and isinstance(right, Const):
        return Mask("mask", Origin(node, "a comparison"), dtype="bool")
    if (
        (equal or unequal)
        and left is None
        and isinstance(right, Const)
        and right.value in (0.0, 1.0)
    ):
        # adj == 0 of a tensor the pass does not know: Boolean, its meaning left to the API;
        # that it is a mask at all is a guess (dist == 1 may be a bonus), as a name's is
        return Mask("mask", Origin(node, "a comparison with 0 or 1"), dtype="bool", by_name=True)
    return None
