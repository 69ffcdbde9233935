"""Dtypes and sizes: what `dtype=` or `.to(…)` makes of a value, and the sizes it is given."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review.provenance import (
    Dtype,
    KeyCat,
    Mask,
    Origin,
)
from attention.review.roles import (
    _as_dim,
    _role,
)
from attention.review.syntax import (
    int_literal,
    last_name,
)
from attention.review.values import (
    AnyValue,
    Dim,
    Tensor,
    Transposed,
    retype,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def sizes(
    ev: Interpreter, node: ast.Call, values: list[AnyValue | None], *, shape_only: bool = False
) -> tuple[Dim, ...] | None:
    """The sizes a constructor is given: ``ones(L, S)`` or ``ones((L, S))``.

    ``shape_only``: the first argument is the whole shape (``torch.full(shape, value)``).
    """
    args = [arg for arg in ev.args(node) if arg.keyword is None]
    if shape_only:
        args = args[:1]
        if not args or not isinstance(args[0].value, (ast.Tuple, ast.List)):
            return None
    if any(arg.star for arg in args):
        return None
    if len(args) == 1 and isinstance(args[0].value, (ast.Tuple, ast.List)):
        elements: list[ast.expr] = list(args[0].value.elts)
        found = [ev.ev(element) for element in elements]
    else:
        elements = [arg.value for arg in args]
        found = values[: len(args)]
    return tuple(_as_dim(value, element) for value, element in zip(found, elements, strict=True))


def size_of(
    ev: Interpreter, tensor_node: ast.AST, tensor: AnyValue | None, index: ast.AST, node: ast.AST
) -> Dim | None:
    """``x.size(i)`` / ``x.shape[i]``: a size, with its role and value where known."""
    axis = int_literal(index)
    if axis is None:
        return None
    role = _role(last_name(tensor_node)) if axis in (-2, 2) else None
    if isinstance(tensor, KeyCat) and (axis in (-2, 2) or axis == tensor.axis == 1):
        # (axis 1: `torch.cat([mems, x], dim=1)` of [B, S, D] hidden states; axis 0 is a
        # batch as often as a sequence-first length, and says nothing)
        # the length of keys with a cache joined in front: S > L on the cached path
        return Dim(Origin(node, ""), role, None, read=True, cache=tensor.origin)
    value = None
    sizes = tensor.sizes if isinstance(tensor, (Tensor, Transposed)) else None
    if sizes is not None and -len(sizes) <= axis < len(sizes):
        known = sizes[axis]
        value = known.value
        role = role or known.role
    return Dim(Origin(node, ""), role, value, read=True)


def created_dtype(ev: Interpreter, node: ast.Call, *, like: bool) -> Dtype | None:
    """The dtype a constructor call gives (``dtype=`` or its default)."""
    for arg in ev.args(node):
        if arg.keyword == "dtype":
            text = ev.code(arg.value)
            if "bool" in text:
                return "bool"
            if any(word in text for word in ("long", "int", "uint8")):
                return "int"
            return "float" if "float" in text or "half" in text else None
    return None if like else "float"


def convert(ev: Interpreter, mask: Mask, node: ast.Call) -> AnyValue | None:
    """``mask.to(dtype)`` / ``mask.type(dtype)``: the mask's new dtype."""
    text = " ".join(ev.code(arg.value) for arg in ev.args(node))
    if "bool" in text:
        return retype(mask, "bool", Origin(node, ""))
    if any(word in text for word in ("float", "half", "bfloat16", "double", "dtype")):
        return retype(mask, "float", Origin(node, ""))
    if any(word in text for word in ("long", "int", "uint8")):
        return retype(mask, "int", Origin(node, ""))
    return mask
