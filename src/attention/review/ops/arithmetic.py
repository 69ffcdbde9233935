"""Arithmetic: ``+``, ``-``, ``*``, ``&``, ``|``, ``~`` of masks, scores and constants."""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from attention.review import state
from attention.review.events import (
    AdditiveMasksSummed,
    IntegersInverted,
    MaskAdded,
    MaskInverted,
    MaskOfASettingInverted,
    MaskRanked,
    ScoresMasked,
    ZerosTimesConstant,
    emit,
)
from attention.review.ops import arithmetic, fills, normalisation, products
from attention.review.ops.positions import (
    PAIRWISE,
    _shifted,
)
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Const,
    Embedded,
    Mask,
    Meaning,
    Origin,
    Scale,
    Scores,
    Weights,
)
from attention.review.roles import (
    _features_first,
    _keys_first,
)
from attention.review.rules import (
    am2_fills,
    am4_softmax,
    am5_scale,
)
from attention.review.syntax import (
    _pair_sides,
    is_none,
    last_name,
    names_in,
)
from attention.review.values import (
    AnyValue,
    Attended,
    Dim,
    Exp,
    ExpSum,
    OneMinus,
    Param,
    Positions,
    RowConst,
    ScaledTensor,
    Tensor,
    Transposed,
    _overflows_float16,
    _penalise,
    is_zero_one,
)
from attention.review.widths import model_width

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def _pairwise(left: ast.AST, right: ast.AST) -> bool:
    """``x[:, :, None]`` against ``x[:, None, :]``: one tensor, a new axis in another place."""
    if not (isinstance(left, ast.Subscript) and isinstance(right, ast.Subscript)):
        return False
    if ast.dump(left.value) != ast.dump(right.value):
        return False
    sides = [
        side.slice.elts if isinstance(side.slice, ast.Tuple) else [side.slice]
        for side in (left, right)
    ]
    if len(sides[0]) != len(sides[1]):
        return False
    new = [[is_none(element) for element in side] for side in sides]
    if new[0] == new[1] or sum(new[0]) != 1 or sum(new[1]) != 1:
        return False
    return all(
        isinstance(element, ast.Slice) or is_none(element) for side in sides for element in side
    )


def _fold(left: object, right: object, operator: ast.operator, node: ast.AST) -> Const | None:
    """Two constants combined: ``1 / 2``, ``-1e4 * 2``, ``torch.finfo(t).min / 2``.

    A fraction of a dtype's own range is still relative to that dtype (it fits it); a full
    ``finfo.min`` plus a small number is still ``finfo.min``.
    """
    if not isinstance(left, Const) or not isinstance(right, Const):
        return None
    a, b = left.value, right.value
    try:
        if isinstance(operator, ast.Add):
            value = a + b
        elif isinstance(operator, ast.Sub):
            value = a - b
        elif isinstance(operator, ast.Mult):
            value = a * b
        elif isinstance(operator, ast.Div):
            value = a / b
        elif isinstance(operator, ast.Pow):
            value = float(a**b)
        else:
            return None
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, complex) or math.isnan(value):
        return None
    ranged = [c for c in (left, right) if c.finfo or c.relative]
    if not ranged:
        return Const(value, Origin(node, "a constant"))
    plain = [c for c in (left, right) if not (c.finfo or c.relative)]
    additive = isinstance(operator, (ast.Add, ast.Sub))
    unchanged = all(
        (additive and abs(c.value) < 1e30) or (not additive and c.value == 1.0) for c in plain
    )
    full = unchanged and all(c.finfo for c in ranged) and len(ranged) == 1
    return Const(value, Origin(node, "a constant"), finfo=full, relative=not full)


def _over_queries(mask: Mask, node: ast.AST) -> bool:
    """A Boolean comparison given a new axis before its last one, whatever it is called.

    ``(ids != 0)[:, None, :]`` or ``.unsqueeze(1)``: it varies along the last axis (the keys)
    and is broadcast over the queries.
    """
    if not isinstance(mask.origin.node, ast.Compare):
        return False
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "unsqueeze" and node.args:
            axis = node.args[-1]
            return not (isinstance(axis, ast.UnaryOp) and ast.unparse(axis) == "-1")
        if node.func.attr not in ("float", "to", "type_as", "bool", "long", "int", "half"):
            return False
        node = node.func.value
    if isinstance(node, ast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        last = parts[-1] if parts else None
        inserted = any(isinstance(p, ast.Constant) and p.value is None for p in parts[:-1])
        return (
            inserted and isinstance(last, ast.Slice) and last.lower is None and last.upper is None
        )
    return False


def _named_mask(node: ast.AST, lookup: Callable[[str], object]) -> bool:
    """A parameter named a mask (``mask``, ``attn_mask``) that nothing else says anything of.

    Multiplied into scores, it is 0/1 or Boolean (an additive mask is added, a scale is not
    named a mask): the masked scores become 0.  A tensor the function makes is what the code
    says it is, not what its name does.
    """
    while isinstance(node, ast.Subscript) or (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("unsqueeze", "view", "reshape", "float", "to", "bool", "expand")
    ):
        # seq_mask[:, None, None, :], mask.unsqueeze(1).float(): the parameter, its axes moved
        if isinstance(node, ast.Subscript):
            node = node.value
        else:
            assert isinstance(node, ast.Call)
            assert isinstance(node.func, ast.Attribute)
            node = node.func.value
    return (
        isinstance(node, ast.Name)
        and isinstance(lookup(node.id), Param)
        and node.id.lower().strip("_").endswith("mask")
    )


def invert(ev: Interpreter, mask: Mask, node: ast.AST) -> Mask:
    """``~mask``: the other meaning for a Boolean mask, a finding for any other dtype."""
    if mask.additive_when is not None:
        # Boolean under one setting, additive under another: right for the first only,
        # unless the code tested that it is Boolean
        if mask.dtype != "bool":
            emit(ev, MaskOfASettingInverted(mask, node))
        return mask.flipped(Origin(node, "inverted")).but(dtype="bool")
    if mask.by_name and not mask.batch:
        # `~` on a name is itself evidence the value is Boolean (on a float it raises):
        # a parameter's name saying "integer attention_mask" is contradicted here, and with
        # it the meaning the name gave (masks named so are True = masked out in some code)
        flipped = mask.flipped(Origin(node, "inverted with `~`")).but(dtype="bool")
        return flipped.but(meaning=None) if mask.hf else flipped
    if mask.kind == "additive" or mask.dtype in ("int", "float"):
        emit(ev, MaskInverted(mask, node))
        return mask.flipped(Origin(node, "inverted")).but(dtype=mask.dtype)
    return mask.flipped(Origin(node, "inverted with `~`"))


def _layout_kept(
    left: AnyValue | None, right: AnyValue | None, operator: ast.operator
) -> Embedded | None:
    """``x + pos``, ``x * scale`` of a batch-first tensor: still batch first.

    The other side is a number, or a tensor of no known role (a learned position table, an
    embedding of positions); never a mask, scores or weights, whose facts go first.
    """
    if not isinstance(operator, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return None
    for this, other in ((left, right), (right, left)):
        if isinstance(this, Embedded) and (
            other is None or isinstance(other, (Const, Tensor, Param, ScaledTensor, Embedded))
        ):
            return this
    return None


def binary(
    ev: Interpreter,
    left_node: ast.AST,
    operator: ast.operator,
    right_node: ast.AST,
    node: ast.AST,
) -> AnyValue | None:
    """A binary operation: scores (``q @ kᵀ``), scaling, masks added or multiplied."""
    left = ev.ev(left_node)
    right = ev.ev(right_node)
    origin = Origin(node, "")
    if isinstance(left, Positions) or isinstance(right, Positions):
        return _shifted(left, right, operator, left_node, right_node, origin)
    laid_out = _layout_kept(left, right, operator)
    if laid_out is not None:
        return laid_out
    if isinstance(operator, ast.MatMult):
        if isinstance(left, Weights) and left.nan_at is not None:
            return Attended(origin, left.nan_at)  # NaN rows of weights give NaN outputs
        if isinstance(right, Transposed) and not _keys_first(left_node, right_node):
            ndim = (
                len(left.sizes) if isinstance(left, (Tensor, Transposed)) and left.sizes else None
            )
            if ndim is None and right.sizes is not None:
                ndim = len(right.sizes)
            return products.query_key(ev, origin, left, right, ndim)
        if isinstance(left, Transposed) and _features_first(left_node, right_node):
            # q.transpose(-2, -1) @ k of [B, H, d, N] queries and keys (channels first)
            ndim = len(left.sizes) if left.sizes else None
            return Scores(origin, scaled=left.scaled, ndim=ndim)
        if (
            isinstance(left, Tensor)
            and isinstance(right, Tensor)
            and left.sizes
            and right.sizes
            and len(left.sizes) >= 2
            and len(right.sizes) >= 2
        ):
            rank = max(len(left.sizes), len(right.sizes))
            batch = (left.sizes if len(left.sizes) == rank else right.sizes)[: rank - 2]
            return Tensor(origin, sizes=(*batch, left.sizes[-2], right.sizes[-1]))
        return None
    if isinstance(operator, ast.Add):
        return add(ev, left, right, left_node, right_node, node)
    if (
        isinstance(operator, (ast.Mult, ast.Div))
        and isinstance(left, Transposed)
        and (isinstance(right, (Const, Scale, Param, Dim)) or right is None)
    ):
        # k.transpose(-2, -1) * scale: still the key side of q @ kᵀ, now scaled
        carried = None
        if isinstance(right, Scale):
            carried = (right, right_node, isinstance(operator, ast.Div))
        return dataclasses.replace(left, scaled=True, scale=carried)
    if isinstance(operator, ast.Mult) and (
        isinstance(left, Mask) or (isinstance(left, Tensor) and left.dtype == "bool")
    ):
        pair = pairwise(ev, left_node, right_node, operator, node, None)
        if pair is not None:
            return pair  # m.unsqueeze(-1) * m.unsqueeze(-2): 1 where both are
    if isinstance(operator, ast.Mult):
        for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
            if (
                is_zero_one(this)
                and (other is None or (isinstance(other, Tensor) and other.sizes is None))
                and _named_mask(other_node, functools.partial(state.lookup, ev))
            ):
                # causal * seq_mask[:, None, None, :]: 0 wherever the known mask is 0
                assert isinstance(this, Mask)
                return this.but(origin=origin, true_set=None, key_padding=False, meaning=None)
            named = (
                other is None and _named_mask(other_node, functools.partial(state.lookup, ev))
            ) or (isinstance(other, Mask) and other.by_name and other.kind == "mask")
            if isinstance(this, Scores) and (
                is_zero_one(other)
                # by a name only where the product is all the statement assigns (a penalty
                # added beside it, or a softmax around it, is another story)
                or (named and node is ev.assigned_value)
            ):
                return am2_fills.multiplied_mask(ev, this, node)
            if isinstance(this, Scores):
                return products.scaled(ev, this, other, other_node, divide=False)
            if isinstance(this, Weights) and this.weak and isinstance(other, Mask):
                return fills.weak_released(ev, this)  # softmax(where(m, s, 0)) * m
            if (
                isinstance(this, Weights)
                and this.unmasked
                and isinstance(other, Mask)
                and (not other.by_name or _over_queries(other, other_node))
            ):
                return am4_softmax.after_softmax(ev, this, node, other)
            if isinstance(this, Mask) and isinstance(other, Const):
                return fills.penalty(ev, this, other, node)
            if isinstance(this, Weights) and isinstance(other, Scale):
                return am5_scale.scaled_weights(ev, this, node)
        folded = _fold(left, right, operator, node)
        if folded is not None:
            return folded
        if all(isinstance(side, Tensor) and side.dtype == "int" for side in (left, right)):
            return Tensor(origin, "int")  # integers times integers
        for this, other in ((left, right), (right, left)):
            if isinstance(this, OneMinus) and isinstance(other, Const):
                emit(ev, ZerosTimesConstant(other, node, ("1 - x: 0 wherever x is 1", this.origin)))
        constant = right if isinstance(right, Const) else left
        tensor = left if constant is right else right
        if (
            isinstance(constant, Const)
            and _overflows_float16(constant)
            and not isinstance(tensor, (Const, Scale, Mask))
            and not (isinstance(tensor, Tensor) and (tensor.wide or tensor.dtype != "float"))
        ):
            # an indicator times -1e20: the product keeps the tensor's dtype
            return Mask("additive", origin, dtype="float", overflow=constant)
        for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
            if isinstance(this, Tensor) and isinstance(other, Scale):
                # a query (a projection's output) scaled before q @ kᵀ
                return ScaledTensor(origin, (other, other_node, False))
        if isinstance(left, Scale):
            return left
        if isinstance(right, Scale):
            return right
        return ScaledTensor(origin)
    if isinstance(operator, (ast.Div, ast.Sub, ast.Pow)):
        folded = _fold(left, right, operator, node)
        if folded is not None:
            return folded
    if isinstance(operator, ast.Div):
        if isinstance(left, Exp) and isinstance(right, ExpSum) and right.exp is left:
            # exp(s) / exp(s).sum(dim, keepdim=True): a softmax written out
            return normalisation.softmax(ev, node, left.scores, 0, dim=(right.dim, right.at))  # type: ignore[arg-type]
        if isinstance(left, Scores):
            return products.scaled(ev, left, right, right_node, divide=True)
        if isinstance(left, Weights) and isinstance(right, Scale):
            return am5_scale.scaled_weights(ev, left, node)
        if isinstance(left, Weights):
            if left.masked_at is not None:
                ev.pending.pop(id(left.masked_at.node), None)
            return Weights(left.origin, unmasked=left.unmasked)
        if isinstance(left, Const) and isinstance(right, Scale):
            return Scale(origin, right.width, inverted=not right.inverted)
        if isinstance(left, Tensor) and isinstance(right, Scale):
            return ScaledTensor(origin, (right, right_node, True))
        return ScaledTensor(origin)
    if isinstance(operator, ast.Sub):
        if isinstance(left, Scores) and isinstance(right, RowConst):
            # scores - scores.max(-1, keepdim=True): the shift a stable softmax takes
            return left
        if isinstance(left, Scores):
            penalty = fills.subtracted_penalty(ev, right_node)
            if penalty is not None:
                return add(ev, left, penalty, left_node, right_node, node)
        if (
            isinstance(left, Const)
            and left.value == 1.0
            and isinstance(right, Mask)
            and right.kind == "mask"
        ):
            return right.flipped(origin).but(dtype=right.dtype or "float")
        if isinstance(left, Const) and left.value == 1.0 and not isinstance(right, Const):
            return OneMinus(origin)
        return None
    if isinstance(operator, ast.Pow) and isinstance(right, Const):
        if isinstance(left, Scale) or right.value not in (-0.5, 0.5):
            return None  # the root of a scale: (1 / √d) ** 0.5 on each of q and k
        width = products.width_of(ev, left_node, node)
        if isinstance(left, Dim):
            # a size read from a tensor says what it is, whatever its name
            shown = left.role == "width" or model_width(ev, left_node) is not None
            width = ev.code(left_node) if shown else None
        if right.value == -0.5:
            return Scale(origin, width, inverted=False)
        if right.value == 0.5:
            return Scale(origin, width, inverted=True)
        return None
    if isinstance(operator, (ast.BitAnd, ast.BitOr)):
        combined = combine(ev, left, right, node)
        return pairwise(ev, left_node, right_node, operator, node, combined) or combined
    return None


def pairwise(
    ev: Interpreter,
    left_node: ast.AST,
    right_node: ast.AST,
    operator: ast.operator,
    node: ast.AST,
    combined: AnyValue | None,
) -> Mask | None:
    """``m[:, :, None] & m[:, None, :]``: one per-position mask on the query and key axes.

    A query whose own entry is False (for ``&``; True for ``|``) has a row of the same
    value on every key: read as allowed (forbidden), that row allows no key.  The row is
    empty only where the data has such a position, so it is a warning (AM602).
    """
    sides = _pair_sides(left_node, right_node, rank_of(ev, left_node))
    bases = {side[0] for side in sides if side is not None}
    if None in sides or len(sides) != 2 or len(bases) != 1:
        return None  # one tensor, once on the query axis and once on the key axis
    if isinstance(combined, Mask) and combined.query_and_key is not None:
        return None  # a known padding mask on both axes: AM602 at its sink already
    made = combined if isinstance(combined, Mask) else None
    if made is None:
        base = ev.ev(left_node)
        dtype = base.dtype if isinstance(base, (Mask, Tensor)) else None
        made = Mask("mask", Origin(node, ""), dtype=dtype)
    row = 1.0 if isinstance(operator, ast.BitOr) else 0.0
    return made.but(
        empty_row=Origin(node, PAIRWISE),
        row_value=row,
        key_padding=False,
        key_last=True,
        moved_at=None,
        unranked_at=None,
        unranked_ndim=None,
    )


def rank_of(ev: Interpreter, node: ast.AST) -> int | None:
    """The rank of what ``x.unsqueeze(a)`` adds an axis to, where the pass knows it."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    base = ev.ev(node.func.value)
    if isinstance(base, Mask):
        return base.ndim
    if isinstance(base, Tensor) and base.sizes is not None:
        return len(base.sizes)
    return None


def combine(
    ev: Interpreter, left: AnyValue | None, right: AnyValue | None, node: ast.AST
) -> AnyValue | None:
    """``a & b`` / ``a | b`` of two masks."""
    if isinstance(left, Mask) and isinstance(right, Mask):
        meaning = left.meaning if left.meaning == right.meaning else None
        query_and_key = None
        if (
            left.key_padding
            and right.key_padding
            and not left.by_name
            and left.key_last != right.key_last
        ):
            query_and_key = Origin(node, "")
        # a padding mask on the query axis combined with a mask of no padding (a causal
        # triangle) keeps its wrong axis
        moved = [
            term
            for term, other in ((left, right), (right, left))
            if term.moved_at is not None and not term.key_last and not other.key_padding
        ]
        return Mask(
            "mask",
            Origin(node, ""),
            dtype="bool",
            meaning=meaning,
            by_name=left.by_name and right.by_name,
            query_and_key=query_and_key,
            key_padding=bool(moved),
            key_last=not moved,
            moved_at=moved[0].moved_at if moved else None,
        )
    return None


def add(
    ev: Interpreter,
    left: AnyValue | None,
    right: AnyValue | None,
    left_node: ast.AST,
    right_node: ast.AST,
    node: ast.AST,
) -> AnyValue | None:
    """``x + y``: a mask added to scores, or two additive masks summed."""
    if isinstance(left, Mask) and isinstance(right, Mask):
        if left.kind == right.kind == "additive":
            emit(ev, AdditiveMasksSummed(left, right, node))
            return left.but(finfo_terms=left.finfo_terms + right.finfo_terms)
        return None
    for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
        if isinstance(this, Scores) and this.key_at != -1:
            # scores whose keys are not last: where a mask's keys and triangle lie is not known
            return dataclasses.replace(this, masked=True, fixable=None)
        if isinstance(this, Scores):
            if isinstance(other, Mask) and other.unranked_at is not None:
                ranked = other.ranked(this.ndim, this.origin)
                if ranked is not other:
                    emit(ev, MaskRanked(ranked, other_node, "scores + mask", scores=True))
            if isinstance(other, Mask):
                emit(ev, MaskAdded(other, other_node, "scores + mask adds the mask's values"))
                emit(ev, ScoresMasked(this, other))
            biased = this.biased or (
                other is None and any("bias" in name for name in names_in(other_node))
            )
            row = this.empty_row
            if isinstance(other, Mask) and other.kind == "additive" and other.empty_row:
                row = other.empty_row
            if isinstance(other, Mask) and other.kind == "additive":
                this = _penalise(this, Origin(node, "the mask's penalty added to the scores"))
            return dataclasses.replace(
                this, masked=True, fixable=None, biased=biased, empty_row=row
            )
    for this, other, this_node in ((left, right, left_node), (right, left, right_node)):
        if isinstance(this, Mask) and (
            other is None or isinstance(other, (Param, Tensor, ScaledTensor, Transposed))
        ):
            # x + indicator * -1e20, x + a 0/1 mask: about attention only if a softmax
            # reads the sum
            before = len(ev.hits)
            emit(ev, MaskAdded(this, this_node, "x + mask adds the mask's values"))
            found = tuple(ev.hits[before:])
            row = this.empty_row if this.kind == "additive" else None
            if not found and row is None:
                continue
            del ev.hits[before:]
            return Scores(Origin(node, ""), scaled=True, masked=True, pending=found, empty_row=row)
    return _fold(left, right, ast.Add(), node)


@operation("logical_not")
def logical_not(ev: Interpreter, c: Call) -> Reading:
    """``m.logical_not()`` / ``torch.logical_not(m)``: the mask inverted."""
    if c.method == "logical_not" or c.qualified == "torch.logical_not":
        # the tensor acted on, m of m.logical_not() and of torch.logical_not(m) alike
        subject = c.tensor
        return invert(ev, subject, c.node) if isinstance(subject, Mask) else None
    return NOT_MINE


@operation("eq", "ne", kinds=(Mask,))
def mask_compared_to_constant(ev: Interpreter, c: Call) -> Reading:
    """``m.eq(0)`` / ``m.ne(0)`` of a 0/1 mask: Boolean, flipped or not."""
    values, method, receiver, origin = c.values, c.method, c.receiver, c.origin
    if (
        method in ("eq", "ne")
        and len(values) == 1
        and isinstance(receiver, Mask)
        and receiver.kind == "mask"
        and isinstance(values[0], Const)
        and values[0].value in (0.0, 1.0)
    ):
        flip = (method == "eq") == (values[0].value == 0.0)
        if flip:
            return receiver.flipped(origin).but(dtype="bool")
        return receiver.but(dtype="bool", origin=origin, hf=False)
    return NOT_MINE


@operation("eq", "ne")
def compared_to_padding(ev: Interpreter, c: Call) -> Reading:
    """``ids.eq(pad_id)`` / ``ids.ne(pad_id)``: a key padding mask, forbidden or allowed."""
    args, method, origin = c.args, c.method, c.origin
    if method in ("eq", "ne") and args:
        pad = last_name(args[0].value)
        if pad is not None and "pad" in pad.lower():
            polarity: Meaning = "forbidden" if method == "eq" else "allowed"
            return Mask("mask", origin, "bool", polarity, key_padding=True, ndim=2)
        return None
    return NOT_MINE


def unary(ev: Interpreter, node: ast.UnaryOp) -> AnyValue | None:
    """``-c`` and ``~mask``."""
    value = ev.ev(node.operand)
    if isinstance(node.op, ast.USub) and isinstance(value, Const):
        return dataclasses.replace(value, value=-value.value)
    if isinstance(node.op, ast.Invert) and isinstance(value, Mask):
        return arithmetic.invert(ev, value, node)
    if isinstance(node.op, ast.Invert) and isinstance(value, Tensor) and value.dtype == "int":
        emit(ev, IntegersInverted(value, node))
        return Mask("mask", Origin(node, "inverted integers"), "int")
    if isinstance(node.op, ast.Invert) and value is None:
        # `~x` runs on Boolean and integer tensors only (a float raises): times a Python
        # float it is float32
        return Tensor(Origin(node, ""), "bool")
    return None
