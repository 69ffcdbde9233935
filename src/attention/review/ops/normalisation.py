"""Normalisation: ``softmax`` (the library's or written out), a softcap, a top-k, and its axis."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review.events import ScoresNormalised, ScoresSoftcapped, SoftmaxAlong, emit, emitted
from attention.review.ops import fills
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation, shorts
from attention.review.provenance import (
    Origin,
    Scores,
    Weights,
)
from attention.review.sinks import (
    NO_DIM,
    SOFTMAX,
    TANH,
)
from attention.review.syntax import (
    Arg,
    int_literal,
    last_name,
)
from attention.review.values import (
    AnyValue,
    Exp,
    ExpSum,
    Hit,
    RowConst,
    Tensor,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


_REDUCTIONS = ("max", "amax", "logsumexp")


def _over_its_key_sum(node: ast.AST, names: set[str]) -> bool:
    """``w / w.sum(dim=-1, keepdim=True)`` (or ``.sum(-1)``) for ``w`` one of ``names``."""
    if not (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Name)
        and node.left.id in names
        and isinstance(node.right, ast.Call)
        and isinstance(node.right.func, ast.Attribute)
        and node.right.func.attr == "sum"
        and last_name(node.right.func.value) == node.left.id
    ):
        return False
    dims = [*node.right.args, *(k.value for k in node.right.keywords if k.arg == "dim")]
    return any(int_literal(dim) == -1 for dim in dims)


def softmax(
    ev: Interpreter,
    node: ast.Call,
    subject: AnyValue | None,
    offset: int,
    dim: tuple[int | None, ast.AST] | None = None,
) -> AnyValue | None:
    """A softmax of ``subject``; ``dim``: an ``nn.Softmax``'s axis and where it was built."""
    if isinstance(subject, Tensor) and dim is None:
        dim_arg = next(
            (
                arg
                for index, arg in enumerate(ev.args(node))
                if arg.keyword == "dim" or (arg.keyword is None and index == offset)
            ),
            None,
        )
        if dim_arg is not None:
            emit(ev, SoftmaxAlong(subject, int_literal(dim_arg.value), dim_arg.value))
        return Weights(Origin(node, ""))
    if not isinstance(subject, Scores):
        return Weights(Origin(node, "")) if subject is None else None
    ev.consumed[id(subject)] = (subject, Origin(node, "softmax"))
    if subject.late is not None:
        ev.pending.pop(id(subject.late.node), None)
    weak: list[ast.AST] = []
    for pending in subject.pending:
        if isinstance(pending, Hit) and pending not in ev.hits:
            if pending.fix is not None and pending is not subject.fixable:
                # something read the filled scores before the softmax: no safe rewrite
                pending = dataclasses.replace(pending, fix=None)
            if pending.code == "AM203":
                # reported unless the mask zeroes these weights after the softmax (and
                # they are renormalised: AllenNLP's masked_softmax)
                ev.pending[id(pending.node)] = pending
                weak.append(pending.node)
                continue
            ev.hits.append(pending)
    at: ast.AST | Arg
    if dim is None:
        dim_arg = None
        for index, arg in enumerate(ev.args(node)):
            if arg.keyword == "dim" or (arg.keyword is None and index == offset):
                dim_arg = arg
        at = dim_arg if dim_arg is not None else node
        axis = int_literal(dim_arg.value) if dim_arg is not None else None
        implicit = dim_arg is None
    else:
        axis, at = dim
        implicit = axis is None
        axis = None if axis == NO_DIM else axis
    emit(ev, ScoresNormalised(subject, axis, at, implicit=implicit, softmax=node))
    # a row with no key gives NaN weights, until a guard flushes them (Weights.nan_at)
    nan_at = Origin(node, "softmax") if subject.empty_row is not None else None
    return Weights(
        Origin(node, "softmax"),
        # (weights of scores whose keys are not last: where a later mask's keys lie is unknown)
        unmasked=not subject.masked and subject.key_at == -1,
        unscaled=not subject.scaled,
        nan_at=nan_at,
        weak=tuple(weak),
    )


def flattened(
    ev: Interpreter, scores: Scores, node: ast.Call, values: list[AnyValue | None], origin: Origin
) -> Scores:
    """``s.flatten(start)``: the axes from ``start`` to the last become one.

    Where the scores' rank is known and ``start`` is before the key axis, the keys are folded
    in with the axes before them (DETR's ``weights.flatten(2)`` of [b, q, n, h, w]).
    """
    start, _ = ev.argument(node, values, 0, "start_dim")
    end, _ = ev.argument(node, values, 1, "end_dim")
    first = 0 if start is None else int_literal(start.value)
    last = -1 if end is None else int_literal(end.value)
    if scores.ndim is None or first is None or last is None:
        return dataclasses.replace(scores, ndim=None)
    first, last = first % scores.ndim, last % scores.ndim
    ndim = scores.ndim - (last - first)
    if first < scores.ndim - scores.key_axes and last == scores.ndim - 1:
        return dataclasses.replace(scores, ndim=ndim, merged=origin, key_axes=1)
    keys = scores.key_axes - (last - first) if last == scores.ndim - 1 else scores.key_axes
    return dataclasses.replace(scores, ndim=ndim, key_axes=max(keys, 1))


def renormalised_over_keys(ev: Interpreter, at: ast.AST | Arg) -> bool:
    """``attn = dots.softmax(dim=1) + eps`` then ``attn / attn.sum(dim=-1, keepdim=True)``."""
    node = at.value if isinstance(at, Arg) else at
    if not ev.functions:
        return False
    function = ev.functions[-1]
    names = {
        statement.targets[0].id
        for statement in ast.walk(function)
        if isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and any(inner is node for inner in ast.walk(statement.value))
    }
    return bool(names) and any(
        _over_its_key_sum(division, names) for division in ast.walk(function)
    )


def softcap(ev: Interpreter, scores: Scores, node: ast.AST) -> Scores:
    """Tanh of scores that carry a mask's penalty: -inf becomes a finite -1.

    What the rules find waits for a softmax to read what follows; the squashed scores carry no
    penalty.
    """
    if scores.penalised is None:
        return scores
    found = emitted(ev, ScoresSoftcapped(scores, node))
    return dataclasses.replace(
        scores, pending=(*scores.pending, *found), fixable=None, penalised=None
    )


def hand_written_softmax(
    ev: Interpreter,
    node: ast.Call,
    method: str | None,
    qualified: str | None,
    receiver: AnyValue | None,
    args: list[Arg],
    values: list[AnyValue | None],
) -> AnyValue | None:
    """The parts of ``exp(s - s.amax(-1, keepdim=True))`` / its ``sum(-1, keepdim=True)``.

    A reduction of the scores (max, amax, logsumexp), kept through ``.detach()`` and through
    ``torch.maximum`` / ``clamp`` with anything, is a per-row constant; ``exp`` of scores is
    a numerator, its ``sum`` over one axis the denominator (the division is the softmax).
    """
    origin = Origin(node, "")
    subject = values[0] if qualified and values else receiver
    short = qualified.rsplit(".", 1)[-1] if qualified and qualified.startswith("torch.") else None
    name = short if qualified else method
    if name in _REDUCTIONS and isinstance(subject, Scores):
        return RowConst(origin)
    if method == "detach" and isinstance(receiver, RowConst):
        return receiver
    if name in ("maximum", "minimum", "clamp", "clamp_min", "clamp_max") and any(
        isinstance(value, RowConst) for value in (receiver, *values)
    ):
        return RowConst(origin)
    if name == "exp" and isinstance(subject, Scores):
        return Exp(origin, subject)
    if method == "sum" and isinstance(receiver, Exp):
        dim_arg = next(
            (a for i, a in enumerate(args) if a.keyword == "dim" or (a.keyword is None and i == 0)),
            None,
        )
        if dim_arg is not None:
            return ExpSum(origin, receiver, int_literal(dim_arg.value), dim_arg.value)
    return None


def top_k(ev: Interpreter, scores: Scores) -> None:
    """``scores.topk(k)``: the keys each query keeps, read from masked scores.

    A 0/1 mask added to the scores (AM201) moves them by one, so it forbids nothing there
    either.  Other findings that wait for a softmax (a fill that overflows float16) stay
    waiting: -inf ranks last, as a mask means.
    """
    for pending in scores.pending:
        if isinstance(pending, Hit) and pending.code == "AM201" and pending not in ev.hits:
            ev.hits.append(pending)


@operation(*shorts(SOFTMAX), "softmax")
def softmax_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.softmax(x, dim)``, ``F.softmax`` and ``x.softmax(dim)``: weights, over which axis."""
    node, func, args, values, qualified, method, receiver = (
        c.node,
        c.func,
        c.args,
        c.values,
        c.qualified,
        c.method,
        c.receiver,
    )
    if qualified in SOFTMAX or (method == "softmax" and qualified is None):
        subject = receiver if method == "softmax" and qualified is None else None
        offset = 0 if subject is not None else 1
        if subject is None and values:
            subject = values[0]
        softmax_input = func.value if offset == 0 and isinstance(func, ast.Attribute) else None
        if softmax_input is None and args and args[0].keyword is None:
            softmax_input = args[0].value
        fills.fill_read_by_softmax(ev, softmax_input)
        return softmax(ev, node, subject, offset)
    return NOT_MINE


@operation(*shorts(TANH))
def tanh_of_scores(ev: Interpreter, c: Call) -> Reading:
    """``torch.tanh(scores)``: a softcap of the scores."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified in TANH and values and isinstance(values[0], Scores):
        return softcap(ev, values[0], node)  # torch.tanh(scores)
    return NOT_MINE


@operation("tanh", "tanh_", kinds=(Scores,))
def tanh_method(ev: Interpreter, c: Call) -> Reading:
    """``scores.tanh()``: a softcap of the scores."""
    node, qualified, method, receiver = c.node, c.qualified, c.method, c.receiver
    if method in ("tanh", "tanh_") and qualified is None and isinstance(receiver, Scores):
        return softcap(ev, receiver, node)  # scores.tanh()
    return NOT_MINE


@operation(
    *_REDUCTIONS, "detach", "maximum", "minimum", "clamp", "clamp_min", "clamp_max", "exp", "sum"
)
def softmax_written_out(ev: Interpreter, c: Call) -> Reading:
    """The parts of a softmax written out: a row's max, ``exp``, its ``sum``."""
    node, args, values, qualified, method, receiver = (
        c.node,
        c.args,
        c.values,
        c.qualified,
        c.method,
        c.receiver,
    )
    stable = hand_written_softmax(ev, node, method, qualified, receiver, args, values)
    if stable is not None:
        return stable
    return NOT_MINE


@operation("topk")
def top_k_call(ev: Interpreter, c: Call) -> Reading:
    """``scores.topk(k)`` / ``torch.topk(scores, k)``: the keys each query keeps."""
    method, function, tensor = c.method, c.function, c.tensor
    if (method == "topk" or function == "topk") and isinstance(tensor, Scores):
        top_k(ev, tensor)
    return NOT_MINE
