"""Indexing: `x[..., None, :]`, a row or column of positions, a triangle's corner, a size."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review.ops import (
    dtypes,
    triangles,
)
from attention.review.ops.positions import (
    PAIRWISE,
    _positions_subscript,
)
from attention.review.provenance import (
    Mask,
    Origin,
    Scores,
    mask_from_name,
)
from attention.review.syntax import (
    _whole,
    int_literal,
    is_none,
    last_name,
    string_literal,
)
from attention.review.values import (
    AnyValue,
    Layers,
    Param,
    Positions,
    RowConst,
    Tensor,
    Transposed,
    TupleValue,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def subscript(ev: Interpreter, node: ast.Subscript) -> AnyValue | None:
    """``m[:, None, :]``: the mask's new number of axes and where its key axis went."""
    if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        tensor = ev.ev(node.value.value)
        if not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return dtypes.size_of(ev, node.value.value, tensor, node.slice, node)
    base = ev.ev(node.value)
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for element in elements:
        if not isinstance(element, ast.Slice):
            ev.ev(element)
    if len(elements) == 1 and string_literal(elements[0]) == "attention_mask":
        named = mask_from_name("attention_mask", node)
        return named.but(batch=True) if named is not None else None
    if isinstance(base, Scores):
        if all(
            isinstance(element, ast.Slice)
            or (isinstance(element, ast.Constant) and element.value is Ellipsis)
            for element in elements
        ):
            return base  # the same axes, cut
        # an integer drops an axis, None adds one, a mask selects rows: the rank and the
        # rows are no longer known
        return dataclasses.replace(base, ndim=None, empty_row=None)
    if isinstance(base, RowConst) and int_literal(node.slice) == 0:
        return base  # s.max(-1, keepdim=True)[0]
    if isinstance(base, Positions):
        return _positions_subscript(base, elements, node)
    if isinstance(base, Layers) and not isinstance(node.slice, ast.Slice):
        return base.module
    if isinstance(base, TupleValue):
        position = int_literal(node.slice)
        if position is not None and -len(base.values) <= position < len(base.values):
            return base.values[position]  # type: ignore[return-value]
        return None
    if (
        isinstance(base, (Tensor, Transposed))
        and base.sizes is not None
        and len(base.sizes) >= 2
        and int_literal(node.slice) is not None
    ):
        # qkv[0] of a permuted [3, B, H, N, d]: one part, its rank one less
        dtype = base.dtype if isinstance(base, Tensor) else None
        return Tensor(Origin(node, ""), dtype, sizes=base.sizes[1:])
    if isinstance(base, Tensor) and base.dtype is not None:
        # an integer tensor stays one, whatever is indexed
        return Tensor(Origin(node, ""), base.dtype, base.wide)
    name = last_name(node.value)
    if (
        (base is None or isinstance(base, Param))
        and name is not None
        and "mask" in name.lower()
        and _moves_the_last_axis(elements)
    ):
        # a mask by its name, of unknown rank and meaning: what the subscript does to it
        # counts once its rank is shown (Mask.ranked)
        base = Mask("mask", Origin(node.value, f"`{name}` by its name"), by_name=True)
    if not isinstance(base, Mask):
        return None
    if base.true_set is not None and len(elements) >= 2:
        triangles.corner_cut(ev, base.true_set, elements[-2], elements[-1], node)
    new_axes = sum(1 for element in elements if is_none(element))
    ellipsis = any(
        isinstance(element, ast.Constant) and element.value is Ellipsis for element in elements
    )
    integers = sum(
        1
        for element in elements
        if not isinstance(element, ast.Slice)
        and not is_none(element)
        and not (isinstance(element, ast.Constant) and element.value is Ellipsis)
    )
    consumed = sum(1 for element in elements if not is_none(element))
    key_last = base.key_last
    # a trailing None moves the key axis only when every axis was named before it
    if is_none(elements[-1]) and (ellipsis or (base.ndim is not None and consumed >= base.ndim)):
        key_last = False
    ndim = base.ndim + new_axes - integers if base.ndim is not None else None
    pairwise = base.empty_row is not None and base.empty_row.reason == PAIRWISE
    if (
        (base.ndim is None or base.by_name)
        and base.key_last
        and base.true_set is None
        and not pairwise  # [.., L, S] already: `pair[:, None]` adds the heads' axis
        and _moves_the_last_axis(elements)
    ):
        # mask[:, None, :, None]: of a [B, S] mask, the keys go to the query axis (a rank
        # a name gives is a guess: it too waits to be shown)
        return base.but(
            unranked_at=Origin(node, ""),
            unranked_ndim=len(elements),
            empty_row=None,
            head_axes=None,
        )
    row = base.empty_row if key_last else None
    return base.but(
        key_last=key_last,
        ndim=ndim,
        unranked_at=None,
        unranked_ndim=None,
        empty_row=row,
        head_axes=None,
    )


def _moves_the_last_axis(elements: list[ast.expr]) -> bool:
    """``[:, None, :, None]``, ``[:, :, None]``: at most two whole axes, a new one last."""
    return (
        len(elements) >= 2
        and is_none(elements[-1])
        and _whole(elements[-2])
        and all(_whole(element) or is_none(element) for element in elements)
        and sum(1 for element in elements if _whole(element)) <= 2
    )
