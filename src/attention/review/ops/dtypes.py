"""Dtypes and sizes: what `dtype=` or `.to(…)` makes of a value, and the sizes it is given."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review import ops
from attention.review.events import ConstantCast, emit
from attention.review.ops import fills
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Dtype,
    KeyCat,
    Mask,
    Origin,
    Scores,
)
from attention.review.roles import (
    _as_dim,
    _role,
)
from attention.review.sinks import INTEGER_DTYPES
from attention.review.syntax import (
    int_literal,
    last_name,
)
from attention.review.values import (
    AnyValue,
    Dim,
    Tensor,
    Transposed,
    _wide,
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


@operation(*ops.names(ops.widens))
def widened_tensor(ev: Interpreter, c: Call) -> Reading:
    """``x.float()`` of a tensor that is no mask or scores: float32 by construction."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.widens(method) and not args and not isinstance(receiver, (Mask, Scores)):
        # float32 (or float64) by construction: a fill of -1e9 fits there
        return Tensor(origin, "float", wide=True)
    return NOT_MINE


@operation("half", "bfloat16", "to", "type", "type_as", kinds=(Tensor,))
def narrowed_constant(ev: Interpreter, c: Call) -> Reading:
    """A tensor holding a constant cast to a narrower dtype: the constant must fit it."""
    node, args, method, receiver = c.node, c.args, c.method, c.receiver
    if isinstance(receiver, Tensor) and receiver.holds is not None:
        narrowed = fills.narrowing(ev, node, method, args)
        if narrowed is not None:
            emit(ev, ConstantCast(receiver.holds, node, narrowed))
    return NOT_MINE


@operation(*ops.names(lambda n: ops.named_dtype(n) == "float"), kinds=(Scores,))
def scores_as_float(ev: Interpreter, c: Call) -> Reading:
    """``scores.float()`` / ``half()``: the scores in the dtype named."""
    method, receiver = c.method, c.receiver
    if ops.named_dtype(method) == "float" and isinstance(receiver, Scores):
        return dataclasses.replace(receiver, wide=ops.widens(method))
    return NOT_MINE


@operation(*ops.names(ops.widens), kinds=(Mask,))
def widened_mask(ev: Interpreter, c: Call) -> Reading:
    """``mask.float()``: the mask in float32, where a penalty of -1e9 fits."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.widens(method) and isinstance(receiver, Mask) and not args:
        # float32 (or float64) by construction: a penalty of -1e9 times it fits
        retyped = retype(receiver, "float", origin)
        return (retyped if isinstance(retyped, Mask) else receiver).but(wide=True)
    return NOT_MINE


@operation(*ops.names(ops.gives), kinds=(Tensor,))
def zero_one_as_bool(ev: Interpreter, c: Call) -> Reading:
    """``torch.ones(...).bool()``: a 0/1 tensor as Boolean."""
    given = ops.gives(c.method)
    args, receiver, origin = c.args, c.receiver, c.origin
    if given == "bool" and isinstance(receiver, Tensor) and receiver.zero_one and not args:
        return dataclasses.replace(receiver, origin=origin, dtype="bool", wide=False)
    return NOT_MINE


@operation(*ops.names(ops.gives))
def as_int(ev: Interpreter, c: Call) -> Reading:
    """``x.long()`` / ``int()``: the value as integers."""
    given = ops.gives(c.method)
    receiver, origin = c.receiver, c.origin
    if given == "int":
        return retype(receiver, "int", origin) or Tensor(origin, "int")
    return NOT_MINE


@operation(*ops.names(ops.gives))
def as_named_dtype(ev: Interpreter, c: Call) -> Reading:
    """``float()``, ``half()``, ``bool()``, ``type_as(scores)``: the mask in its new dtype."""
    given = ops.gives(c.method)
    receiver, origin = c.receiver, c.origin
    if given is not None:
        # float(), half(), bool(), type_as(scores): the mask in its new dtype
        return retype(receiver, given, origin)
    return NOT_MINE


@operation(*ops.names(ops.dtype_argument), kinds=(Mask,))
def mask_converted(ev: Interpreter, c: Call) -> Reading:
    """``mask.to(dtype)``: the mask in the dtype the arguments say."""
    node, method, receiver = c.node, c.method, c.receiver
    if ops.dtype_argument(method) and isinstance(receiver, Mask):
        return convert(ev, receiver, node)
    return NOT_MINE


@operation(*ops.names(ops.dtype_argument))
def converted_to_int(ev: Interpreter, c: Call) -> Reading:
    """``x.to(torch.long)``: an integer tensor."""
    node, args, method, origin = c.node, c.args, c.method, c.origin
    if ops.dtype_argument(method) and "int" in (
        created_dtype(ev, node, like=True),
        _integer_dtype(args[0].value) if args and args[0].keyword is None else None,
    ):
        return Tensor(origin, "int")
    return NOT_MINE


@operation(*ops.names(ops.dtype_argument))
def converted_to_wide(ev: Interpreter, c: Call) -> Reading:
    """``x.to(torch.float32)`` of a tensor that is no mask: float32 by construction."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if (
        ops.dtype_argument(method)
        and not isinstance(receiver, (Mask, Scores))
        and any(_wide(ev.code(arg.value)) for arg in args if arg.keyword in (None, "dtype"))
    ):
        # float32 (or float64) by construction: a fill of -1e9 fits there
        return Tensor(origin, "float", wide=True)
    return NOT_MINE


@operation("size")
def size_call(ev: Interpreter, c: Call) -> Reading:
    """``x.size(dim)``: a size, and which sequence it counts."""
    node, func, args, method, receiver = c.node, c.func, c.args, c.method, c.receiver
    if method == "size" and len(args) == 1 and isinstance(func, ast.Attribute):
        return size_of(ev, func.value, receiver, args[0].value, node)
    return NOT_MINE


def _integer_dtype(node: ast.AST) -> str | None:
    """``"int"`` for ``torch.uint8`` / ``torch.long`` / ``torch.int64`` written out, else None."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
        and node.attr in INTEGER_DTYPES
    ):
        return "int"
    return None
