"""Fills: what ``masked_fill``, ``torch.where`` and ``x[m] = v`` make of scores or a mask.

Each is a transfer function of the pass: it reads the filled value, the mask and the fill
constant and returns what the result is known to be (masked scores, an additive mask, weights
with rows zeroed), telling the rules what they ask about on the way.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from attention.review import ops, state
from attention.review.events import (
    BooleanTensorFilled,
    ConstantCast,
    ConstantTaken,
    FillOverflows,
    MaskAtApi,
    PenaltyWhereTrue,
    ScoresFilled,
    ScoresMasked,
    ZeroPicked,
    ZerosTimesConstant,
    emit,
    emitted,
)
from attention.review.ops import (
    dtypes,
    triangles,
)
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Const,
    Mask,
    Origin,
    Scores,
    Weights,
)
from attention.review.rules import (
    am2_fills,
    am4_softmax,
    am6_padding,
)
from attention.review.sinks import (
    ATTENTION_WORDS,
    NOT_ZEROING,
    PENALTY,
)
from attention.review.syntax import (
    Arg,
    _whole,
    factors,
    identifiers,
    int_literal,
    is_none,
    last_axis_added,
    names_in,
)
from attention.review.values import (
    UNKNOWN,
    AnyValue,
    Attended,
    Dim,
    Param,
    Tensor,
    _masked,
    _overflows_float16,
    _penalise,
    _wide,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def _bare_name(node: ast.AST) -> str | None:
    """``m``, also as ``m.float()`` / ``m.bool()`` / ``m.to(x.dtype)``: the name (same zeros)."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("float", "half", "bool", "to", "type_as", "type")
    ):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


def _zero_test(condition: ast.AST) -> tuple[str, int] | None:
    """``(m, branch)``: the name a condition tests and the torch.where branch picked where m is 0.

    ``m == 0``, ``m.eq(0)``, ``~m``, ``not``-ing calls pick branch 1; ``m != 0``, ``m.ne(0)``,
    ``m`` itself and ``m.bool()`` pick branch 2 there.
    """
    zero = (0, 0.0, False)
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1:
        left, right = condition.left, condition.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
        name = _bare_name(left)
        if name is None or not (isinstance(right, ast.Constant) and right.value in zero):
            return None
        if isinstance(condition.ops[0], ast.Eq):
            return name, 1
        if isinstance(condition.ops[0], ast.NotEq):
            return name, 2
        return None
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, (ast.Invert, ast.Not)):
        name = _bare_name(condition.operand)
        return (name, 1) if name is not None else None
    if isinstance(condition, ast.Call) and isinstance(condition.func, ast.Attribute):
        method, receiver = condition.func.attr, condition.func.value
        operands = list(condition.args)
        if isinstance(receiver, ast.Name) and receiver.id == "torch" and operands:
            receiver = operands.pop(0)  # torch.eq(m, 0), torch.logical_not(m)
        literal = [a.value for a in operands if isinstance(a, ast.Constant)]
        if method == "logical_not" and not operands:
            name = _bare_name(receiver)
            return (name, 1) if name is not None else None
        if method in ("eq", "ne") and len(operands) == 1 and literal and literal[0] in zero:
            name = _bare_name(receiver)
            return (name, 1 if method == "eq" else 2) if name is not None else None
        if method == "bool" and not operands:
            name = _bare_name(receiver)
            return (name, 2) if name is not None else None
        return None
    if isinstance(condition, ast.Name):
        return condition.id, 2
    return None


def _row_guard(condition: str) -> bool:
    """A condition that finds the NaN rows: ``w.isnan()``, or the mask's rows with no key."""
    return "isnan" in condition or ".any(" in condition or ".all(" in condition


def _a_row(index: ast.AST, sizes: tuple[Dim, ...] | None) -> bool:
    """``[0, 0, 2, :]``, ``[..., 2, :]``, ``[1, 0]`` of 3-D sizes: one query row, every key.

    The axis before the keys is picked by a number or a name, the keys' axis is whole (written
    ``:`` or left out where the sizes show it).
    """
    elements: list[ast.AST] = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    ellipsis = [isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements]
    if any(ellipsis[1:]) or any(isinstance(e, ast.Starred) or is_none(e) for e in elements):
        return False
    if not ellipsis[0] and sizes is not None and len(elements) < len(sizes):
        elements += [ast.Slice()] * (len(sizes) - len(elements))
    if len(elements) < 2 or not _whole(elements[-1]):
        return False
    picked = elements[-2]
    return int_literal(picked) is not None or isinstance(picked, ast.Name)


def _unknown_condition(value: object, node: ast.AST, branches: list[ast.expr]) -> bool:
    """A condition nothing is known of (``mask``, ``mask.bool()``), not a test of the scores.

    ``torch.where(s > 0, s, 0.0)`` is a threshold: a condition that compares, or reads what a
    branch reads, is not a mask.
    """
    return (
        (value is None or isinstance(value, Param))
        and not isinstance(node, (ast.Compare, ast.BoolOp))
        and not identifiers(node) & set().union(*map(identifiers, branches))
    )


def _float32(func: ast.AST) -> bool:
    """``x.float().masked_fill(…)``: the tensor filled is float32 (or float64) by construction."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return False
    inner = func.value.func
    return isinstance(inner, ast.Attribute) and inner.attr in ("float", "double")


def _key_columns(index: ast.AST) -> bool:
    """``[:, j]``, ``[:, -2:]``, ``[..., j]``: every axis but the last whole, the last narrowed."""
    if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
        return False
    *rows, last = index.elts
    whole = all(
        (isinstance(axis, ast.Slice) and axis.lower is axis.upper is axis.step is None)
        or (isinstance(axis, ast.Constant) and axis.value is Ellipsis)
        for axis in rows
    )
    narrowed = int_literal(last) is not None or (
        isinstance(last, ast.Slice)
        and last.step is None
        and (last.lower is not None or last.upper is not None)
        and all(int_literal(bound) is not None for bound in (last.lower, last.upper) if bound)
    )
    return whole and narrowed


def _zeros(node: ast.AST, qualname: Callable[[ast.AST], str | None]) -> bool:
    """``torch.zeros_like(x)`` / ``torch.zeros(...)`` / ``x.new_zeros(...)``: a tensor of 0."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("zeros_like", "new_zeros"):
        return qualname(node.func) in (None, "torch.zeros_like")
    return qualname(node.func) in ("torch.zeros", "torch.zeros_like")


def subtracted_penalty(ev: Interpreter, node: ast.AST) -> Mask | None:
    """``1e9 * m`` in ``scores - 1e9 * m``: the additive mask ``m * -1e9``.

    Only a product of exactly a 0/1 mask and a constant (:meth:`penalty` takes only one of
    a penalty's size).
    """
    parts = factors(node)
    if len(parts) != 2:
        return None
    values = [ev.ev(factor) for factor in parts]
    masks = [value for value in values if isinstance(value, Mask) and value.kind == "mask"]
    consts = [value for value in values if isinstance(value, Const)]
    if len(masks) != 1 or len(consts) != 1:
        return None
    negative = dataclasses.replace(consts[0], value=-consts[0].value)
    made = penalty(ev, masks[0], negative, node)
    return made if isinstance(made, Mask) else None


def penalty(ev: Interpreter, mask: Mask, const: Const, node: ast.AST) -> AnyValue | None:
    """``mask * -1e9``: a 0/1 mask turned into an additive penalty where it is 1."""
    if const.value > PENALTY and not const.finfo:
        return None
    if mask.kind == "additive":
        return None
    emit(ev, ZerosTimesConstant(const, node, (mask.says(), mask.origin)))
    emit(
        ev, PenaltyWhereTrue(mask, node, f"`{ev.code(node)}` puts the penalty where the mask is 1")
    )
    # a Boolean or integer mask times a Python float is float32: only a float mask keeps
    # its own (maybe narrower) dtype
    narrow = mask.dtype == "float" and not mask.wide
    overflow = const if narrow and _overflows_float16(const) else None
    return Mask(
        "additive",
        Origin(node, ""),
        dtype="float",
        finfo_terms=int(const.finfo),
        overflow=overflow,
        unranked_at=mask.unranked_at,
        unranked_ndim=mask.unranked_ndim,
        repeated=mask.repeated,
        interleaved=mask.interleaved,
    )


def weak_released(ev: Interpreter, weights: Weights) -> Weights:
    """Weights of weakly masked scores, masked again after the softmax: the fill is moot."""
    for fill in weights.weak:
        ev.pending.pop(id(fill), None)
    return dataclasses.replace(weights, weak=())


def narrowing(ev: Interpreter, node: ast.Call, method: str | None, args: list[Arg]) -> str | None:
    """The dtype a conversion call goes to, unless it is float32 / float64 for certain.

    ``.half()`` and ``.bfloat16()``, and ``.to(x)`` / ``.type(x)`` / ``.type_as(x)`` whose
    dtype is a variable (``.to(dtype)``, ``.to(q.dtype)``): the constant must fit it.  A
    device (``.to("cuda")``, ``.to(x.device)``) is no conversion.
    """
    if method in ("half", "bfloat16") and not args:
        return f"{method}()"
    if method not in ("to", "type", "type_as") or not args:
        return None
    for arg in args:
        text = ev.code(arg.value)
        if arg.keyword not in (None, "dtype") or "device" in text:
            continue
        if _wide(text):
            return None
        if method == "type_as" or arg.keyword == "dtype" or "dtype" in text:
            return text
        if any(narrow in text for narrow in ("float16", "half", "bfloat16")):
            return text
    return None


def filled(ev: Interpreter, node: ast.Call, const: Const, *, silent: bool) -> Tensor:
    """``torch.full(shape, c)`` / ``torch.tensor(c)``: float32 unless a dtype is given.

    ``silent``: the call converts a value out of the dtype's range to ±inf without a word
    (``torch.tensor``); ``torch.full`` raises instead, which needs no finding.
    """
    for arg in ev.args(node):
        if arg.keyword == "dtype":
            text = ev.code(arg.value)
            if _wide(text):
                return Tensor(Origin(node, ""), "float", wide=True, holds=const)
            if silent:
                emit(ev, ConstantCast(const, node, text))
            # 0 and ±inf are the same in every float dtype
            kept = const if const.value == 0.0 or math.isinf(const.value) else None
            return Tensor(Origin(node, ""), dtypes.created_dtype(ev, node, like=True), holds=kept)
    return Tensor(Origin(node, ""), "float", wide=True, holds=const)


def masked_fill(
    ev: Interpreter,
    node: ast.Call,
    target: AnyValue | None,
    args: list[Arg],
    values: list[AnyValue | None],
    func: ast.AST,
) -> AnyValue | None:
    """``x.masked_fill(mask, fill)``: the fill's size and the mask's meaning."""
    if isinstance(target, Scores) and target.key_at != -1:
        # scores whose keys are not last: where a mask's keys and triangle lie is not known
        return dataclasses.replace(target, masked=True, fixable=None)
    mask = values[0] if values else None
    if isinstance(mask, Mask) and isinstance(target, Scores):
        mask = mask.ranked(target.ndim, target.origin)
        emit(ev, ScoresMasked(target, mask))
    fill = values[1] if len(values) >= 2 else None
    if isinstance(mask, Tensor | Param) or (mask is None and args):
        refine_boolean(ev, args[0].value)
    if (
        isinstance(target, Mask)
        and target.kind == "mask"
        and target.dtype == "bool"
        and not target.by_name
        and isinstance(fill, Const)
        and len(args) >= 2
    ):
        emit(ev, BooleanTensorFilled(target, args[1]))
        return target
    if (
        isinstance(target, Scores)
        and id(target) in ev.consumed
        and isinstance(func, ast.Attribute)
        and func.attr.endswith("_")
    ):
        return am4_softmax.late_mask(ev, target, node)
    if isinstance(target, Weights) and args and _row_guard(ev.code(args[0].value)):
        # w.masked_fill(w.isnan(), 0), w.masked_fill(~allowed.any(-1, keepdim=True), 0)
        return nan_guard(ev, target) or target
    if (
        isinstance(target, Weights)
        and args
        and am6_padding.pair_rows_zeroed(ev, args[0].value, target)
    ):
        # w.masked_fill(~valid.unsqueeze(-1), 0.0): the padded queries' rows flushed
        return nan_guard(ev, target) or target
    if isinstance(target, Weights) and target.weak and isinstance(mask, Mask):
        return weak_released(ev, target)
    if isinstance(target, Weights):
        if not target.unmasked:
            # the scores may have been masked before the softmax: zeroing the weights of
            # fully masked rows after it is a guard, not a second mask
            return target
        return am4_softmax.after_softmax(ev, target, node, mask if isinstance(mask, Mask) else None)
    if not isinstance(fill, Const):
        held = fill.holds if isinstance(fill, Tensor) else None
        if isinstance(mask, Mask) and held is not None and (held.value <= PENALTY or held.finfo):
            # a tensor of one penalty (`torch.tensor(-1e5)`, a registered buffer) fills as
            # the number does: masked_fill takes a 0-dim tensor only
            emit(ev, PenaltyWhereTrue(mask, args[0], "masked_fill(mask, -inf) masks where True"))
        return _masked(target)
    fill_arg = args[1]
    before = len(ev.hits)
    if fill.value <= PENALTY or fill.finfo:
        if (
            _overflows_float16(fill)
            and not _float32(func)
            and not (isinstance(target, (Tensor, Scores)) and target.wide)
        ):
            # a fill float16 cannot hold, into a tensor not float32 for certain
            attention = attention_context(ev, target, mask, node)
            rewrite = finfo_fix(ev, node, func)
            if not attention and _unshown(target):
                # nothing shows these are attention scores yet, whatever they are called:
                # the finding waits for a softmax to read what the fill gives
                emit(ev, FillOverflows(target, fill, fill_arg, node, True, None))
                return _awaiting_softmax(ev, node, before)
            emit(ev, FillOverflows(target, fill, fill_arg, node, attention, rewrite))
        if isinstance(mask, Mask):
            built = isinstance(target, Tensor) and (target.zero_one or target.holds)
            emit(
                ev,
                PenaltyWhereTrue(
                    mask,
                    args[0],
                    "masked_fill(mask, -inf) masks where True",
                    layout=isinstance(target, (Scores, Mask)) or bool(built),
                    finite=not math.isinf(fill.value),
                    scores=isinstance(target, Scores),
                ),
            )
        if not isinstance(target, Scores):
            row = row_left_empty(ev, mask, fill, where=True)
            return Mask(
                "additive",
                Origin(node, ""),
                dtype="float",
                finfo_terms=int(fill.finfo),
                empty_row=row,
                row_value=fill.value if row is not None else None,
            )
    elif isinstance(target, Scores):
        emit(ev, ScoresFilled(target, fill, fill_arg))
    elif (
        _unshown(target)
        and (isinstance(mask, Mask) or (fill.value != 0.0 and (_unshown(mask) or _boolean(mask))))
        and not last_axis_added(args[0].value)
    ):
        # a weak fill where a mask varies along the last axis, of a tensor nothing shows
        # to be scores: judged only if a softmax along that axis reads the result
        emit(ev, ScoresFilled(Scores(Origin(node, ""), scaled=True), fill, fill_arg))
        return _awaiting_softmax(ev, node, before)
    if isinstance(target, Scores):
        # a fill of scores is about attention only if a softmax reads them
        found = tuple(ev.hits[before:])
        del ev.hits[before:]
        fix = next((hit for hit in found if hit.code == "AM202" and hit.fix is not None), None)
        if fill.value <= PENALTY or fill.finfo:
            target = _penalise(target, Origin(node, "the scores filled with a penalty"))
        return dataclasses.replace(
            target,
            masked=True,
            pending=target.pending + found,
            fixable=fix,
            empty_row=row_left_empty(ev, mask, fill, where=True) or target.empty_row,
        )
    return None


def where(ev: Interpreter, node: ast.Call, values: list[AnyValue | None]) -> AnyValue | None:
    """``torch.where``: a NaN guard, or :meth:`where_value` and the query row it empties."""
    args = ev.args(node)
    condition, *branches = values
    if args and _row_guard(ev.code(args[0].value)):
        for branch in branches:
            guarded = nan_guard(ev, branch)  # torch.where(w.isnan(), 0.0, w)
            if guarded is not None:
                return guarded
    zeroed = zero_fill(ev, node, args)
    if zeroed is not None:
        return zeroed
    result = where_value(ev, node, values)
    held = [b.holds if isinstance(b, Tensor) and b.holds is not None else b for b in branches]
    for at, where_true in ((1, False), (0, True)):
        row = row_left_empty(ev, condition, held[at], where=where_true)
        if row is None:
            continue
        if isinstance(result, Scores):
            return dataclasses.replace(result, empty_row=row)
        kept, penalty = held[1 - at], held[at]
        if isinstance(kept, Const) and kept.value == 0.0 and isinstance(penalty, Const):
            # torch.where(m, 0.0, -inf) of a mask with an empty row: a row of -inf
            made = Mask("additive", Origin(node, ""), "float")
            if isinstance(result, Mask) and result.kind == "additive":
                made = result
            return made.but(empty_row=row, row_value=penalty.value)
    return result


def zero_fill(ev: Interpreter, node: ast.Call, args: list[Arg]) -> Scores | None:
    """AM203: ``torch.where(m == 0, m * -1e8, s)``: the penalty is 0 wherever it is put.

    The fill is ``m`` times a penalty (written in the call or assigned once above it in
    the function), and the condition picks it exactly where ``m`` is 0 (``m == 0``,
    ``~m``, ``m.logical_not()``, or ``m`` itself picking the other branch), so every
    masked score becomes 0.  The finding waits for a softmax, as a weak fill does.
    """
    if len(args) != 3 or any(arg.keyword or arg.star for arg in args):
        return None
    tested = _zero_test(args[0].value)
    if tested is None:
        return None
    name, branch = tested
    product = assigned_once(ev, args[branch].value, node)
    if not isinstance(product, ast.BinOp) or not isinstance(product.op, ast.Mult):
        return None
    if reassigned_between(ev, name, product, node):
        return None  # `penalty = m * -1e9; m = 1 - m`: another m is tested
    sides = ((product.left, product.right), (product.right, product.left))
    for factor, constant_node in sides:
        constant = ev.ev(constant_node)
        if (
            _bare_name(factor) == name
            and isinstance(constant, Const)
            and (constant.value <= PENALTY or constant.finfo)
        ):
            break
    else:
        return None
    found = emitted(ev, ZeroPicked(product, name, node))
    other = ev.ev(args[3 - branch].value)
    scores = other if isinstance(other, Scores) else Scores(Origin(node, ""), scaled=True)
    return dataclasses.replace(scores, masked=True, pending=(*scores.pending, *found), fixable=None)


def reassigned_between(ev: Interpreter, name: str, first: ast.AST, last: ast.AST) -> bool:
    """Whether the function assigns ``name`` on a line after ``first`` and up to ``last``."""
    if not ev.functions:
        return False
    start, end = getattr(first, "lineno", 0), getattr(last, "lineno", 0)
    return any(
        isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and start < statement.lineno <= end
        and name
        in identifiers(
            ast.Tuple(
                statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            )
        )
        for statement in ast.walk(ev.functions[-1])
    )


def assigned_once(ev: Interpreter, node: ast.expr, before: ast.AST) -> ast.expr:
    """The expression a name was given, where the function assigns it once, above ``before``."""
    if not isinstance(node, ast.Name) or not ev.functions:
        return node
    assigned = [
        statement
        for statement in ast.walk(ev.functions[-1])
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and any(
            isinstance(target, ast.Name) and target.id == node.id
            for target in (
                statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            )
        )
    ]
    if len(assigned) != 1 or not isinstance(assigned[0], ast.Assign):
        return node
    statement = assigned[0]
    if len(statement.targets) != 1 or statement.lineno >= getattr(before, "lineno", 0):
        return node
    return statement.value


def _unshown(target: AnyValue | None) -> bool:
    """A tensor the code says nothing of: a parameter, or one of no known use or contents."""
    if target is None or isinstance(target, Param):
        return True
    return (
        isinstance(target, Tensor)
        and not target.zero_one
        and target.holds is None
        and target.dtype not in ("bool", "int")
    )


def _boolean(value: AnyValue | None) -> bool:
    """A tensor the code shows to be Boolean (``~keep``, ``x > 0``)."""
    return isinstance(value, Tensor) and value.dtype == "bool"


def _awaiting_softmax(ev: Interpreter, node: ast.AST, before: int) -> Scores:
    """The findings raised since ``before``, held by masked scores until a softmax reads them."""
    found = tuple(ev.hits[before:])
    del ev.hits[before:]
    return Scores(Origin(node, ""), scaled=True, masked=True, pending=found)


def where_value(ev: Interpreter, node: ast.Call, values: list[AnyValue | None]) -> AnyValue | None:
    """``torch.where(mask, scores, -1e9)``: a Python number takes the tensor's dtype.

    ``torch.where(m, 0.0, -inf)`` is an additive mask that keeps where ``m`` is True;
    ``torch.where(m, scores, -inf)`` masked scores; two Python numbers a float32 tensor,
    which must fit the dtype it is later converted to.
    """
    condition, *branches = values
    turned = next((b for b in branches if isinstance(b, Scores) and b.key_at != -1), None)
    if turned is not None:
        # scores whose keys are not last: where a mask's keys and triangle lie is not known
        return dataclasses.replace(turned, masked=True, fixable=None)
    args = ev.args(node)
    both = all(isinstance(value, Const) for value in branches)
    before = len(ev.hits)
    for arg, value in zip(args[1:], branches, strict=True):
        other = branches[1] if value is branches[0] else branches[0]
        if (
            isinstance(value, Const)
            and _overflows_float16(value)
            # two Python numbers give float32, where the value fits
            and not both
            and not (isinstance(other, (Tensor, Mask)) and other.wide)
        ):
            emit(ev, ConstantTaken(value, arg.value, "torch.where"))
    found = tuple(ev.hits[before:])
    if found and not (
        isinstance(condition, Mask) or any(isinstance(v, (Scores, Mask)) for v in branches)
    ):
        # nothing shows the tensor is about attention yet: the finding waits for a softmax
        # to read what this gives (a beam search's scores are no attention)
        return _awaiting_softmax(ev, node, before)
    # a tensor filled with one constant (torch.full_like(s, -inf)) penalises as that constant
    constants = [b.holds if isinstance(b, Tensor) and b.holds is not None else b for b in branches]
    penalties = [
        isinstance(value, Const) and (value.value <= PENALTY or value.finfo) for value in constants
    ]
    kept = [isinstance(value, Const) and value.value == 0.0 for value in constants]
    if isinstance(condition, Mask) and any(penalties):
        # the penalty goes where the condition is False (second branch) or True (first)
        if penalties[1]:
            emit(
                ev,
                MaskAtApi(
                    "allowed", condition, args[0], "torch.where(mask, x, -inf) keeps x where"
                ),
            )
        else:
            emit(
                ev,
                PenaltyWhereTrue(condition, args[0], "torch.where(mask, -inf, x) masks where True"),
            )
    scores = next((value for value in branches if isinstance(value, Scores)), None)
    if scores is not None and isinstance(condition, Mask):
        emit(ev, ScoresMasked(scores, condition))
    if scores is not None and any(penalties):
        penalty_at = Origin(node, "a penalty where the mask forbids")
        return dataclasses.replace(_penalise(scores, penalty_at), masked=True)
    weak = next(
        (
            arg.value
            for arg, value in zip(args[1:], constants, strict=True)
            if (isinstance(value, Const) and value.value >= NOT_ZEROING)
            or _zeros(arg.value, ev.qualname)
        ),
        None,
    )
    if (
        scores is not None
        and weak is not None
        and (
            isinstance(condition, Mask)
            or (
                # scores a mask or bias already reached: zeroing rows is a guard then
                not (scores.masked or scores.biased or scores.penalised)
                and _unknown_condition(condition, args[0].value, [a.value for a in args[1:]])
            )
        )
    ):
        # torch.where(mask, scores, 0.0): the masked scores become 0, not -inf; a condition
        # of unknown meaning too (scores where it holds, a weak number where it does not)
        return am2_fills.weak_fill(ev, scores, weak)
    if both and any(penalties) and any(kept):
        penalty = branches[0] if penalties[0] else branches[1]
        assert isinstance(penalty, Const)
        if _overflows_float16(penalty):
            return Tensor(Origin(node, ""), "float", wide=True, holds=penalty)
        return Mask("additive", Origin(node, ""), dtype="float", finfo_terms=int(penalty.finfo))
    if both:
        held = next((v for v in branches if isinstance(v, Const) and _overflows_float16(v)), None)
        return Tensor(Origin(node, ""), "float", wide=True, holds=held)
    kept_mask = next((value for value in branches if isinstance(value, Mask)), None)
    if kept_mask is not None and any(isinstance(value, Const) for value in branches):
        # the mask where the condition holds, a constant elsewhere: its values stay
        return kept_mask
    return None


def refine_boolean(ev: Interpreter, node: ast.AST) -> None:
    """A name used as masked_fill's mask is Boolean from here on (another dtype raises)."""
    if isinstance(node, ast.Name) and not isinstance(state.lookup(ev, node.id), Mask):
        ev.scopes[-1][node.id] = Mask("mask", Origin(node, "masked_fill's mask"), "bool")


def not_zero_one(ev: Interpreter, node: ast.AST) -> None:
    """A tensor of zeros or ones changed in place to what may be other numbers."""
    if isinstance(node, ast.Name):
        found = state.lookup(ev, node.id)
        if isinstance(found, Tensor) and found.zero_one:
            ev.scopes[-1][node.id] = dataclasses.replace(found, zero_one=False)


def index_fill(
    ev: Interpreter, target: ast.Subscript, value: AnyValue | None, value_node: ast.AST
) -> None:
    """``X[~mask] = -1e6``: the same conversion to X's dtype as masked_fill's."""
    index = target.slice
    before = ev.ev(target.value)
    written = value
    if isinstance(value_node, ast.Constant) and isinstance(value_node.value, bool):
        written = Const(float(value_node.value), Origin(value_node, "a constant"))
    row = row_set(ev, target, before, written) if isinstance(written, Const) else None
    if row is not None:
        state.bind(ev, target.value, row)
        return
    if (
        isinstance(before, Mask)
        and before.empty_row is not None
        and not (isinstance(written, Const) and written.value == before.row_value)
    ):
        # `allowed[:, 0] = True`: the empty row may have been given a key
        state.bind(ev, target.value, before.but(empty_row=None, row_value=None))
    if not (isinstance(value, Const) and value.value in (0.0, 1.0)):
        not_zero_one(ev, target.value)
    if not isinstance(value, Const):
        return
    base = ev.ev(target.value)
    if isinstance(base, Weights) and base.nan_at is not None and "isnan" in ev.code(index):
        ev.pending.pop(id(base.nan_at.node), None)  # w[w.isnan()] = 0
        state.bind(ev, target.value, dataclasses.replace(base, nan_at=None))
        return
    if (
        isinstance(base, Tensor)
        and base.dtype in ("float", "bool")
        and base.holds is None
        and value.value in (0.0, 1.0)
        and isinstance(target.value, ast.Name)
    ):
        # torch.zeros(...) with ones set where keys may attend (or the reverse): a 0/1
        # mask, whatever its entries mean
        state.bind(ev, target.value, Mask("mask", Origin(target, "ones set by index"), base.dtype))
        return
    if (
        isinstance(before, Tensor)
        and before.zero_one
        and before.dtype == "float"
        and (value.value <= PENALTY or value.finfo)
        and isinstance(target.value, ast.Name)
        and _key_columns(index)
    ):
        # torch.zeros(L, S) with -inf set in whole key columns: the same keys forbidden
        # for every query, an additive padding mask
        state.bind(
            ev,
            target.value,
            Mask(
                "additive",
                Origin(target, "penalties set in whole key columns"),
                "float",
                key_padding=True,
            ),
        )
        return
    triangle = triangles.indexed_triangle(ev, index)
    if triangle is not None and (value.value <= PENALTY or value.finfo):
        emit(
            ev,
            PenaltyWhereTrue(
                triangle, value_node, "x[rows, cols] = -inf masks where the indices point"
            ),
        )
        if isinstance(base, Scores) and isinstance(target.value, ast.Name):
            state.bind(ev, target.value, index_penalised(ev, base, target, value))
        return
    if isinstance(index, (ast.Tuple, ast.Slice)):
        return
    if (
        isinstance(base, Weights)
        and base.unmasked
        and (value.value <= PENALTY or value.value == 0.0)
        and isinstance(target.value, ast.Name)
    ):
        state.bind(ev, target.value, am4_softmax.after_softmax(ev, base, target, None))
    elif isinstance(base, Scores) and isinstance(target.value, ast.Name):
        state.bind(ev, target.value, index_penalised(ev, base, target, value))
    where = ev.ev(index)
    boolean = isinstance(where, Mask) or isinstance(index, ast.Compare)
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
        boolean = True
    filled = state.lookup(ev, target.value.id) if isinstance(target.value, ast.Name) else None
    if (
        isinstance(where, Mask)  # not a clip or a clean-up (`s[s > 50] = 50`)
        and isinstance(base, Scores)
        and isinstance(filled, Scores)
        and value.value >= NOT_ZEROING
    ):
        # scores[~mask] = 0: the masked scores become 0, not -inf
        state.bind(ev, target.value, am2_fills.weak_fill(ev, filled, value_node))
    if boolean and _overflows_float16(value):
        hits = len(ev.hits)
        emit(ev, ConstantTaken(value, value_node, "an index assignment"))
        if (
            isinstance(target.value, ast.Name)
            and not isinstance(base, (Scores, Mask))
            and not isinstance(where, (Scores,))
            and not any(word in target.value.id.lower() for word in ATTENTION_WORDS)
        ):
            # `areas[mask == 0] = INF` before `.min()`: about attention only if a softmax
            # reads the tensor the constant went into
            state.bind(ev, target.value, _awaiting_softmax(ev, target, hits))


def index_penalised(ev: Interpreter, scores: Scores, target: ast.Subscript, value: Const) -> Scores:
    """``scores[mask] = value``: masked, and penalised if the value is a penalty."""
    if value.value <= PENALTY or value.finfo:
        scores = _penalise(scores, Origin(target, "the scores set to a penalty"))
    return dataclasses.replace(scores, masked=True)


def row_set(
    ev: Interpreter, target: ast.Subscript, base: AnyValue | None, value: Const
) -> Mask | None:
    """One query row set whole to what the rest of the tensor does not hold.

    ``m[0, 0, 2, :] = False`` on ones, ``bias[..., 2, :] = -inf`` on zeros.
    """
    if not (
        isinstance(base, Tensor)
        and base.zero_one
        and base.dtype in ("float", "bool")
        and isinstance(target.value, ast.Name)
        and _a_row(target.slice, base.sizes)
    ):
        return None
    origin = Origin(target, "one query row set, every key")
    if value.value in (0.0, 1.0):
        return Mask("mask", origin, base.dtype, empty_row=origin, row_value=value.value)
    if math.isinf(value.value) and value.value < 0 and base.dtype == "float":
        return Mask("additive", origin, "float", empty_row=origin, row_value=value.value)
    return None


def row_left_empty(
    ev: Interpreter, mask: AnyValue | None, penalty: AnyValue | None, *, where: bool
) -> Origin | None:
    """Where ``mask`` was built with a query row that ``penalty`` (-inf) fills entirely.

    ``where``: the penalty goes where the mask is True (masked_fill) or False (torch.where's
    other branch).
    """
    if not (
        isinstance(mask, Mask)
        and mask.kind == "mask"
        and mask.empty_row is not None
        and isinstance(penalty, Const)
        and math.isinf(penalty.value)
        and penalty.value < 0
    ):
        return None
    return mask.empty_row if mask.row_value == (1.0 if where else 0.0) else None


def nan_guard(ev: Interpreter, weights: AnyValue | None) -> AnyValue | None:
    """Weights whose NaN rows are flushed (``nan_to_num``, ``torch.where(w.isnan(), 0, w)``)."""
    if isinstance(weights, Weights) and weights.nan_at is not None:
        ev.pending.pop(id(weights.nan_at.node), None)
        return dataclasses.replace(weights, nan_at=None)
    if isinstance(weights, Attended):
        ev.pending.pop(id(weights.nan_at.node), None)  # the outputs flushed
        return UNKNOWN
    return None


def attention_context(
    ev: Interpreter, target: AnyValue | None, mask: AnyValue | None, node: ast.Call
) -> bool:
    """Whether a fill is of attention scores or a mask, as far as the code or names show."""
    if isinstance(target, (Scores, Mask)) or isinstance(mask, (Mask, Scores)):
        return True
    parts: list[ast.AST] = [arg.value for arg in ev.args(node)]
    if isinstance(node.func, ast.Attribute):
        parts.append(node.func.value)
    words = " ".join(name for part in parts for name in names_in(part)).lower()
    return any(word in words for word in ATTENTION_WORDS)


def fill_read_by_softmax(ev: Interpreter, read: ast.AST | None) -> None:
    """A softmax reads the result of a masked_fill directly: its rewrite is safe."""
    candidate = ev.fix_candidates.pop(id(read), None) if read is not None else None
    if candidate is None:
        return
    hit, rewrite = candidate
    if hit in ev.hits:
        ev.hits[ev.hits.index(hit)] = dataclasses.replace(hit, fix=rewrite)


def finfo_fix(ev: Interpreter, node: ast.Call, func: ast.AST) -> str | None:
    """The rewrite of an overflowing fill, ``torch.finfo(x.dtype).min``, where it is safe.

    ``x`` is the tensor filled (the receiver of ``x.masked_fill``, the first argument of
    ``torch.masked_fill``), a plain name or attribute; ``torch`` is a name the module binds
    at its top level, unconditionally, so it is bound wherever the fill runs.
    """
    torch = next((local for local, name in ev.top_imports.items() if name == "torch"), None)
    if torch is None or not isinstance(func, ast.Attribute):
        return None
    filled: ast.AST = func.value
    if ops.function_form(ev.qualname(func)) == "masked_fill":
        args = ev.args(node)
        if not args or args[0].keyword is not None:
            return None
        filled = args[0].value
    if not isinstance(filled, (ast.Name, ast.Attribute)):
        return None
    return f"{torch}.finfo({ev.code(filled)}.dtype).min"


@operation("masked_fill", "masked_fill_")
def masked_fill_call(ev: Interpreter, c: Call) -> Reading:
    """``x.masked_fill(m, v)`` / ``torch.masked_fill(x, m, v)``: the fill read by the rules."""
    node, func, args, values, method, function, receiver, tensor = (
        c.node,
        c.func,
        c.args,
        c.values,
        c.method,
        c.function,
        c.receiver,
        c.tensor,
    )
    if method in ("masked_fill", "masked_fill_") or function == "masked_fill":
        filled = args
        if function == "masked_fill":
            receiver, values, filled = tensor, values[1:], args[1:]
        return masked_fill(ev, node, receiver, filled, values, func)
    return NOT_MINE


@operation("nan_to_num", "nan_to_num_")
def nan_to_num_call(ev: Interpreter, c: Call) -> Reading:
    """``w.nan_to_num(0.0)``: NaN rows of weights set to zero."""
    method, function, receiver, tensor = c.method, c.function, c.receiver, c.tensor
    if method in ("nan_to_num", "nan_to_num_") or function == "nan_to_num":
        guarded = nan_guard(ev, tensor if function == "nan_to_num" else receiver)
        if guarded is not None:
            return guarded
    return NOT_MINE


@operation("where")
def where_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.where(c, x, y)``: a fill, or a mask made of two values."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified == "torch.where" and len(values) == 3:
        return where(ev, node, values)
    return NOT_MINE
