"""Events: what the pass meets that a rule may judge, and the rules that subscribe to each.

The evaluator and the operations say what happened (a mask reached an API, a penalty was put
where a mask is True, a constant was cast, the scores were scaled, a softmax read an axis);
a rule family says, with :func:`on`, which events it judges and raises its findings there.
Neither knows the other: a new rule subscribes to an event that exists, and the code that
emits it does not change.

>>> from attention.review import rules  # every family subscribed
>>> [subscriber.__module__.rsplit(".", 1)[-1] for subscriber in subscribers(MaskAdded)]
['am2_fills']
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from attention.review import apis
from attention.review.provenance import Const, Mask, Module, Origin, Scores
from attention.review.syntax import Arg
from attention.review.values import AnyValue, Dim, Hit, Tensor

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

__all__ = [
    "AdditiveMasksSummed",
    "BooleanTensorFilled",
    "CausalFlag",
    "ConstantCast",
    "ConstantTaken",
    "Event",
    "FillOverflows",
    "HeadsSplit",
    "IntegersInverted",
    "MaskAdded",
    "MaskAtApi",
    "MaskInverted",
    "MaskOfASettingInverted",
    "MaskRanked",
    "ModuleCalled",
    "ModuleInput",
    "PenaltyWhereTrue",
    "ScoresFilled",
    "ScoresMasked",
    "ScoresNormalised",
    "ScoresScaled",
    "ScoresSoftcapped",
    "SoftmaxAlong",
    "TriangleCut",
    "WindowAtApi",
    "ZeroPicked",
    "ZerosTimesConstant",
    "emit",
    "emitted",
    "on",
    "subscribers",
]


class Event:
    """Something the pass met that a rule may judge."""


@dataclass(frozen=True)
class MaskAtApi(Event):
    """A mask handed to an API that reads True as ``convention`` (``api`` names the call)."""

    convention: Literal["allowed", "forbidden"]
    mask: Mask
    node: ast.AST | Arg
    api: str
    rows: tuple[str, ...] = ()
    """The rows of the argument that receives the mask (``apis``' claims), where known."""


@dataclass(frozen=True)
class WindowAtApi(Event):
    """A local window ``(left, …)`` handed to an API that does not count the query's own key.

    Such an API counts keys on each side of the query; ``left`` is the expression of the left
    size, ``api`` names the call, ``rows`` are the argument's rows.
    """

    left: ast.expr
    node: ast.AST
    api: str
    rows: tuple[str, ...]


@dataclass(frozen=True)
class PenaltyWhereTrue(Event):
    """A penalty (-inf, -1e9) put where a mask is True: ``masked_fill``, ``where``, ``x[m] =``.

    ``layout``: the filled tensor has the scores' layout; ``finite``: the penalty is finite;
    ``scores``: the filled tensor is the scores.
    """

    mask: Mask
    node: ast.AST | Arg
    reads: str
    layout: bool = True
    finite: bool = False
    scores: bool = False


@dataclass(frozen=True)
class MaskAdded(Event):
    """A mask added to the scores (or to a tensor a softmax may read): its values shift them."""

    mask: Mask
    node: ast.AST | Arg
    reads: str


@dataclass(frozen=True)
class MaskRanked(Event):
    """A mask of a rank the code did not show, given the rank of what it meets (``api``)."""

    mask: Mask
    node: ast.AST | Arg
    api: str
    finite: bool = False
    scores: bool = False


@dataclass(frozen=True)
class ScoresMasked(Event):
    """Scores and a mask meet (filled, added, selected): per-head tilings must agree."""

    scores: Scores
    mask: Mask


@dataclass(frozen=True)
class ConstantCast(Event):
    """A tensor holding ``const`` converted to ``dtype`` (written as in the code)."""

    const: Const
    node: ast.AST
    dtype: str


@dataclass(frozen=True)
class ZerosTimesConstant(Event):
    """A tensor with zeros in it times a constant (``fact`` says why it has zeros)."""

    const: Const
    node: ast.AST
    fact: tuple[str, Origin]


@dataclass(frozen=True)
class SoftmaxAlong(Event):
    """A softmax of ``subject`` along axis ``dim`` (None: not a literal)."""

    subject: Tensor
    dim: int | None
    node: ast.AST


@dataclass(frozen=True)
class ScoresNormalised(Event):
    """Scores read by a softmax along ``axis`` (``implicit``: no axis given)."""

    scores: Scores
    axis: int | None
    node: ast.AST | Arg
    implicit: bool
    softmax: ast.AST | None = None


@dataclass(frozen=True)
class ScoresScaled(Event):
    """The scores (or a query) scaled by ``scale`` at ``node`` (``divide``: divided by it).

    ``scores``: the scores as they were before, where they are the scores.
    """

    scale: AnyValue | None
    node: ast.AST
    divide: bool
    parted: bool | None = None
    scores: Scores | None = None


@dataclass(frozen=True)
class TriangleCut(Event):
    """A triangle of ``rows`` × ``columns`` cut at ``diagonal``: which corner it keeps."""

    node: ast.AST
    rows: Dim
    columns: Dim
    diagonal: int
    lower: bool


@dataclass(frozen=True)
class ModuleCalled(Event):
    """An attention module's forward called with ``values`` (``row``: its API row)."""

    row: apis.Api
    node: ast.Call
    values: list[AnyValue | None]
    api: str


@dataclass(frozen=True)
class HeadsSplit(Event):
    """A linear layer's output (made at ``linear``) split into heads by ``node``."""

    linear: Origin
    node: ast.Call
    args: list[Arg]
    values: list[AnyValue | None]


@dataclass(frozen=True)
class MaskInverted(Event):
    """``~mask`` (or ``mask.logical_not()``) of a mask that is known to be one."""

    mask: Mask
    node: ast.AST


@dataclass(frozen=True)
class MaskOfASettingInverted(Event):
    """``~mask`` or ``mask.logical_not()`` of a mask that is additive under another setting."""

    mask: Mask
    node: ast.AST


@dataclass(frozen=True)
class BooleanTensorFilled(Event):
    """``masked_fill`` of a Boolean tensor (not one known by its name) with a number."""

    mask: Mask
    fill: Arg


@dataclass(frozen=True)
class ScoresFilled(Event):
    """Scores filled where a mask says with a constant that is no penalty."""

    scores: Scores
    fill: Const
    node: Arg


@dataclass(frozen=True)
class ZeroPicked(Event):
    """``torch.where(m == 0, m * penalty, s)``: a product that is 0 exactly where it is put."""

    product: ast.BinOp
    name: str
    node: ast.AST


@dataclass(frozen=True)
class ConstantTaken(Event):
    """A constant beyond float16's range given the dtype of a tensor by ``by``."""

    const: Const
    node: ast.AST
    by: Literal["torch.where", "an index assignment"]


@dataclass(frozen=True)
class FillOverflows(Event):
    """``masked_fill`` of a constant float16 cannot hold, into a tensor not float32 for certain.

    ``attention``: the code or its names show the fill is about attention; ``rewrite``: the
    fill as ``torch.finfo(x.dtype).min``, where that rewrite is safe.
    """

    target: AnyValue | None
    fill: Const
    node: Arg
    call: ast.Call
    attention: bool
    rewrite: str | None


@dataclass(frozen=True)
class IntegersInverted(Event):
    """``~x`` of an integer tensor that is not known as a mask."""

    tensor: Tensor
    node: ast.AST


@dataclass(frozen=True)
class ScoresSoftcapped(Event):
    """``cap * tanh(scores / cap)`` of scores that carry a mask's penalty."""

    scores: Scores
    node: ast.AST


@dataclass(frozen=True)
class AdditiveMasksSummed(Event):
    """Two additive masks added to each other."""

    left: Mask
    right: Mask
    node: ast.AST


@dataclass(frozen=True)
class CausalFlag(Event):
    """An attention call's causal flag set to True (``flag``), with its mask or without.

    ``masked``: a mask is passed beside it; ``query``, ``key``: the values given for them.
    """

    api: str
    flag: Arg
    masked: bool
    query: AnyValue | None
    key: AnyValue | None


@dataclass(frozen=True)
class ModuleInput(Event):
    """An attention module called on ``query`` (``first``: its value; ``module``: as built)."""

    module: Module
    api: str
    query: ast.AST
    first: AnyValue | None


E = TypeVar("E", bound=Event)
_SUBSCRIBERS: dict[type[Event], list[Callable[[Interpreter, Event], None]]] = {}


def on(
    kind: type[E],
) -> Callable[[Callable[[Interpreter, E], None]], Callable[[Interpreter, E], None]]:
    """Subscribe a rule's check to one kind of event."""

    def subscribe(check: Callable[[Interpreter, E], None]) -> Callable[[Interpreter, E], None]:
        _SUBSCRIBERS.setdefault(kind, []).append(check)  # type: ignore[arg-type]
        return check

    return subscribe


def subscribers(kind: type[Event]) -> tuple[Callable[[Interpreter, Event], None], ...]:
    """The checks subscribed to a kind of event, in the order they subscribed."""
    return tuple(_SUBSCRIBERS.get(kind, ()))


def emit(ev: Interpreter, event: Event) -> None:
    """Tell every subscribed check what happened; each raises its findings on ``ev``."""
    for check in _SUBSCRIBERS.get(type(event), ()):
        check(ev, event)


def emitted(ev: Interpreter, event: Event) -> tuple[Hit, ...]:
    """Emit ``event`` and take back the findings it raised, for a value to carry.

    A finding about scores waits for a softmax to read them (a fill of logits that no softmax
    reads proves nothing about attention): the operation keeps it with the scores.
    """
    before = len(ev.hits)
    emit(ev, event)
    found = tuple(ev.hits[before:])
    del ev.hits[before:]
    return found
