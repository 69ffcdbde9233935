"""Tensors made: ``torch.full``, ``ones``, ``tensor``, ``finfo``, a constant, ones padded."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review.ops import dtypes, fills
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation, shorts
from attention.review.provenance import Const, Mask, Origin, Scores, mask_from_name
from attention.review.sinks import CONSTRUCTORS, PADDED_ONES
from attention.review.syntax import int_literal, last_name, string_literal
from attention.review.values import AnyValue, Finfo, RowConst, Tensor, Transposed

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


@operation("finfo")
def finfo(ev: Interpreter, c: Call) -> Reading:
    """``torch.finfo(dtype)``: the dtype's limits."""
    args, qualified, origin = c.args, c.qualified, c.origin
    if qualified == "torch.finfo":
        dtype = ev.code(args[0].value) if args else ""
        return Finfo(origin, absolute=dtype.endswith(("float32", "float64", "float", "double")))
    return NOT_MINE


@operation("full")
def full(ev: Interpreter, c: Call) -> Reading:
    """``torch.full(shape, c)``: a tensor holding c."""
    node, values, qualified, origin = c.node, c.values, c.qualified, c.origin
    if qualified == "torch.full" and len(values) >= 2 and isinstance(values[1], Const):
        if values[1].finfo:
            return Mask("additive", origin, dtype="float", finfo_terms=1)
        full = fills.filled(ev, node, values[1], silent=False)
        return dataclasses.replace(full, sizes=dtypes.sizes(ev, node, values, shape_only=True))
    return NOT_MINE


@operation("full_like")
def full_like(ev: Interpreter, c: Call) -> Reading:
    """``torch.full_like(x, c)``: a tensor of x's dtype holding c."""
    node, values, qualified, origin = c.node, c.values, c.qualified, c.origin
    if qualified == "torch.full_like" and len(values) >= 2 and isinstance(values[1], Const):
        # x's dtype unless one is given; a value that dtype cannot hold raises, so it holds c
        sizes = values[0].sizes if isinstance(values[0], Tensor) else None
        return Tensor(
            origin, dtypes.created_dtype(ev, node, like=True), holds=values[1], sizes=sizes
        )
    return NOT_MINE


@operation(*shorts(PADDED_ONES))
def padded_ones(ev: Interpreter, c: Call) -> Reading:
    """``F.pad`` / ``F.unfold`` of ones: a mask, 1 = a real position."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified in PADDED_ONES and values and _made_of_ones(values[0]):
        position, keyword = PADDED_ONES[qualified]
        padding, _ = ev.argument(node, values, position, keyword)
        fill = None
        if keyword == "pad":
            fill, _ = ev.argument(node, values, 3, "value")
        if padding is not None and int_literal(padding.value) != 0 and fill is None:
            # ones where the input was, zeros in the padding: 1 = a real position
            return Mask("mask", Origin(node, "ones padded with zeros"), "float", "allowed")
    return NOT_MINE


@operation("tensor")
def tensor_of_constant(ev: Interpreter, c: Call) -> Reading:
    """``torch.tensor(c)``: a constant."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified == "torch.tensor" and values and isinstance(values[0], Const):
        return fills.filled(ev, node, values[0], silent=True)
    return NOT_MINE


@operation("tensor")
def tensor_of_integers(ev: Interpreter, c: Call) -> Reading:
    """``torch.tensor([[1, 1, 0]])``: integer data, int64 unless a dtype is given."""
    node, args, qualified, origin = c.node, c.args, c.qualified, c.origin
    if qualified == "torch.tensor" and args and _int_literals(args[0].value):
        # integer data (the tokenizer's 1/0 attention_mask written out): int64 unless a
        # dtype is given
        dtype = dtypes.created_dtype(ev, node, like=True) or "int"
        return Tensor(origin, dtype)
    return NOT_MINE


@operation(*CONSTRUCTORS, "randn", "rand")
def constructed(ev: Interpreter, c: Call) -> Reading:
    """``torch.zeros`` / ``ones`` / ``empty`` / ``randn`` …: a tensor of the sizes and dtype."""
    node, values, qualified, short, origin = c.node, c.values, c.qualified, c.short, c.origin
    if short in (*CONSTRUCTORS, "randn", "rand") and qualified and qualified.startswith("torch"):
        like = short.endswith("_like")
        sizes = None if like else dtypes.sizes(ev, node, values)
        if like and values and isinstance(values[0], Tensor):
            sizes = values[0].sizes
        zero_one = short in ("zeros", "ones", "zeros_like", "ones_like")
        return Tensor(
            origin, dtypes.created_dtype(ev, node, like=like), sizes=sizes, zero_one=zero_one
        )
    return NOT_MINE


@operation("float")
def float_constant(ev: Interpreter, c: Call) -> Reading:
    """``float('-inf')``, ``float(x)``: a constant."""
    node, func, args, values, qualified = c.node, c.func, c.args, c.values, c.qualified
    if qualified == "builtins.float" or (isinstance(func, ast.Name) and func.id == "float"):
        text = string_literal(args[0].value) if args else None
        if text is not None:
            text = text.strip().lower()
            if text in ("-inf", "inf", "+inf", "-infinity", "infinity"):
                return Const(float(text), Origin(node, "infinity"))
            try:
                return Const(float(text), Origin(node, "a constant"))
            except ValueError:
                return None
        if values and isinstance(values[0], Const):
            return values[0]
        return None
    return NOT_MINE


def _made_of_ones(value: object) -> bool:
    """A tensor made by ``torch.ones`` / ``torch.ones_like`` and not changed since."""
    if not isinstance(value, Tensor) or not value.zero_one:
        return False
    made = value.origin.node
    return isinstance(made, ast.Call) and last_name(made.func) in ("ones", "ones_like")


def _int_literals(node: ast.AST) -> bool:
    """A list (or tuple) of integer literals, nested to any depth, and nothing else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_int_literals(element) for element in node.elts)
    return int_literal(node) is not None


def attribute(ev: Interpreter, node: ast.Attribute) -> AnyValue | None:
    """``x.attr`` of a value: ``inf``, ``finfo(...).min``, ``.T``, ``.data``, a tokenizer's mask."""
    attr = node.attr
    if ev.qualname(node) in ("math.inf", "torch.inf", "numpy.inf"):
        return Const(float("inf"), Origin(node, "inf"))
    base = ev.ev(node.value)
    if attr in ("min", "max") and isinstance(base, Finfo):
        sign = -1.0 if attr == "min" else 1.0
        if base.absolute:
            return Const(sign * 3.4028234663852886e38, Origin(node, "float32's finfo"))
        return Const(sign * 3.0e38, Origin(node, f"torch.finfo(...).{attr}"), finfo=True)
    if attr in ("mT", "T", "mH"):
        return Transposed(Origin(node, "transposed"))
    if attr == "data" and isinstance(base, (Mask, Scores)):
        return base
    if attr == "values" and isinstance(base, RowConst):
        return base
    if attr == "attention_mask":
        named = mask_from_name(attr, node)
        return named.but(batch=True) if named is not None else None
    return None
