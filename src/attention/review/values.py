"""The checker's abstract values, and what two paths' values join to.

:mod:`~attention.review.provenance` holds the values the rules ask about (a mask, scores,
weights, a constant, a scale); this module holds the rest of what the pass keeps per name (a
size, a tensor of known rank, a query already scaled, positions, a tuple …) and
:func:`join`, which says what a name is after branches that gave it different values.
Nothing here knows a torch function by name.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from attention.review import heads
from attention.review.provenance import (
    Const,
    Dtype,
    KeyCat,
    Mask,
    Module,
    Origin,
    Scale,
    Scores,
    Triangle,
    Value,
)
from attention.review.sinks import BFLOAT16_MAX, FLOAT16_MAX
from attention.review.syntax import (
    Arg,
)


@dataclass(frozen=True)
class Dim:
    """A size: ``q.size(-2)``, ``k.shape[2]``, a literal, a parameter named ``kv_len``.

    ``role``: ``"query"`` or ``"key"`` where the tensor it was read from (or the name it has)
    says which sequence it counts; ``value`` where it is a known number; ``cache``: read from
    keys that have a cache joined in front on some path to the read (S = past + L there).
    """

    origin: Origin
    role: str | None = None
    value: int | None = None
    read: bool = False
    cache: Origin | None = None


@dataclass(frozen=True)
class RowConst:
    """A per-row constant of some scores: their max, amax or logsumexp (maybe clamped).

    Subtracted from those scores it is the shift a stable softmax takes: softmax(s - c) is
    softmax(s).
    """

    origin: Origin


@dataclass(frozen=True)
class Exp:
    """``scores.exp()``: the numerator of a hand-written softmax."""

    origin: Origin
    scores: Scores


@dataclass(frozen=True)
class ExpSum:
    """``e.sum(dim=d, keepdim=True)`` of an :class:`Exp`: a softmax's denominator along ``d``."""

    origin: Origin
    exp: Exp
    dim: int | None
    at: ast.AST


@dataclass(frozen=True)
class Transposed:
    """A key transposed for ``q @ k^T``; ``sizes`` its sizes where known (after the swap).

    ``scaled``: multiplied or divided by a number (``(q * s) @ (k.transpose(-2, -1) * s)``);
    ``scale`` as :class:`ScaledTensor`'s.
    """

    origin: Origin
    sizes: tuple[Dim, ...] | None = None
    scaled: bool = False
    scale: tuple[Scale, ast.AST, bool] | None = None
    axes: heads.Axes | None = None
    major: heads.Major | None = None
    split: tuple[str, str] | None = None


@dataclass(frozen=True)
class Attended:
    """Weights with NaN rows times the values: the outputs of those rows are NaN too."""

    origin: Origin
    nan_at: Origin


@dataclass(frozen=True)
class ScaledTensor:
    """A tensor multiplied or divided by something (a query scaled before ``q @ k^T``).

    ``scale``: the scale it was multiplied (``False``) or divided (``True``) by and where,
    when that is a :class:`Scale`, checked once the tensor reaches ``q @ kᵀ``.
    """

    origin: Origin
    scale: tuple[Scale, ast.AST, bool] | None = None


@dataclass(frozen=True)
class FlatMap:
    """``x.flatten(2)`` of a tensor not known to be scores.

    A feature map ``[B, C, H, W]`` with its positions flattened into the last axis,
    ``[B, C, H·W]``.
    """

    origin: Origin


@dataclass(frozen=True)
class Instance:
    """An instance of a class this module defines (``layer = Attention(8)``)."""

    origin: Origin
    cls: ast.ClassDef


@dataclass(frozen=True)
class Partial:
    """``functools.partial(helper, mask=m)``: a helper of this module with arguments bound."""

    origin: Origin
    function: ast.FunctionDef | ast.AsyncFunctionDef
    args: tuple[Arg, ...]
    values: tuple[object, ...]


@dataclass(frozen=True)
class Layers:
    """``nn.ModuleList(nn.MultiheadAttention(...) for _ in range(n))``: modules of one kind.

    Iterating over it (``for attn in self.layers``) or indexing it (``self.layers[i]``) gives that
    module, so its calls are checked as the module's own; a class of this module
    (``nn.ModuleList([Layer(d) for _ in range(n)])``) is read with what its calls pass.
    """

    origin: Origin
    module: Module | Instance


@dataclass(frozen=True)
class TriangleIndex:
    """``torch.triu_indices(L, S, offset)[axis]``: the rows (0) or columns (1) of a triangle."""

    origin: Origin
    triangle: Triangle
    axis: int


@dataclass(frozen=True)
class TupleValue:
    """Several values at once (``torch.randn(3, 2, 4).unbind(0)``), bound name by name."""

    origin: Origin
    values: tuple[object, ...]


@dataclass(frozen=True)
class Positions:
    """``torch.arange(n)``: position indices, on one axis.

    On the key axis (``"cols"``: ``i[None, :]`` or
    the bare 1-D range, which broadcasts as the last axis) or on the query axis (``"rows"``:
    ``i[:, None]``, ``i.unsqueeze(-1)``), plus ``offset`` (None where it is not a literal);
    ``flat``: still the 1-D range itself.
    """

    origin: Origin
    axis: Literal["cols", "rows"]
    offset: int | None = 0
    flat: bool = False


@dataclass(frozen=True)
class Relative:
    """``i[None, :] - i[:, None]``: one position minus another on the other axis.

    Compared with a number, ``plus - minus OP c`` is ``plus OP minus + c``: a triangle.
    """

    origin: Origin
    plus: Positions
    minus: Positions


@dataclass(frozen=True)
class OneMinus:
    """``1 - x``: zero wherever x is 1 (the complement of a 0/1 indicator)."""

    origin: Origin


@dataclass(frozen=True)
class Tensor:
    """A tensor that is no mask, scores or weights, with what is known of it.

    ``dtype``: ``"bool"``, ``"int"`` or ``"float"`` where the code shows it (``torch.ones``,
    ``.long()``, ``dtype=torch.uint8``).  ``wide``: float32 or float64 for certain
    (``.float()``, ``torch.full(shape, c)`` with no dtype), so no float16 fill overflows it.
    ``holds``: the constant it was filled with (``torch.full(shape, -1e10)``,
    ``torch.where(m, -3e38, 0.0)``), which a later conversion to another dtype must fit.
    ``sizes``: its sizes, where the code shows them (``torch.ones(q_len, kv_len)``,
    ``torch.randn(1, 2, 5, 8)``); ``open``: the rank is not known, only the sizes at the
    ``"end"`` (an ``nn.Linear``'s output) or at the ``"start"`` (an ``nn.Conv1d``'s).
    ``zero_one``: made by ``torch.zeros`` / ``torch.ones`` (and their ``_like``), so every entry
    is 0 or 1: on a path where no entry was set, still a 0/1 mask.  ``features``: the
    ``nn.Linear`` that made it, as it came out (its last axis holds the features, every axis
    before it a position or a batch item).
    """

    origin: Origin
    dtype: Dtype | None = None
    wide: bool = False
    holds: Const | None = None
    sizes: tuple[Dim, ...] | None = None
    open: str | None = None
    zero_one: bool = False
    features: Origin | None = None
    axes: heads.Axes | None = None
    major: heads.Major | None = None
    split: tuple[str, str] | None = None


@dataclass(frozen=True)
class Finfo:
    """``torch.finfo(dtype)``: its ``.min`` is a constant that overflows when added twice.

    ``absolute``: the dtype is written as float32 or float64, so ``.min`` is -3.4e38 whatever
    the tensor it later meets (float16 cannot hold it).
    """

    origin: Origin
    absolute: bool = False


@dataclass(frozen=True)
class NoneValue:
    """The value ``None``.

    Where paths join, a name that is None on one path and a mask on the other keeps the mask:
    every use of it that does not test for None (an addition, a call's argument that is read)
    only runs, or only matters, where it is the mask.
    """


NONE = NoneValue()


@dataclass(frozen=True)
class Unknown:
    """A name whose value the pass cannot tell.

    It was reassigned from something the pass does not model, or bound to different values on
    different paths; its name then proves nothing either.
    """


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Param:
    """A function's parameter, as yet unassigned: its name is the evidence there is.

    ``boolean``: annotated ``torch.BoolTensor`` or jaxtyping's ``Bool[Tensor, ...]``.
    """

    boolean: bool = False


PARAM = Param()


BOOL_PARAM = Param(boolean=True)


AnyValue = (
    Value
    | RowConst
    | Exp
    | ExpSum
    | Transposed
    | ScaledTensor
    | Attended
    | Finfo
    | Tensor
    | OneMinus
    | Positions
    | Relative
    | Dim
    | Instance
    | FlatMap
    | TupleValue
    | Partial
    | Layers
    | TriangleIndex
    | Unknown
    | Param
    | NoneValue
)


Guard = tuple[ast.Name, str, bool]
"""``(name, fact, positive)``: ``fact`` is ``"bool"``, ``"float"`` or ``"none"``."""


def ones_set_or_not(values: Sequence[object]) -> bool:
    """One 0/1 mask of unknown meaning on some paths, the 0/1 tensor it was set in on the rest."""
    masks = [value for value in values if isinstance(value, Mask)]
    return (
        bool(masks)
        and all(
            isinstance(value, Mask) or (isinstance(value, Tensor) and value.zero_one)
            for value in values
        )
        and all(is_zero_one(mask) and mask.meaning is None and mask == masks[0] for mask in masks)
    )


def join(states: list[dict[str, AnyValue]]) -> dict[str, AnyValue]:
    """What the states agree on, name by name; a name they disagree on is UNKNOWN.

    Scores stay scores on every path: scaled if scaled on all, masked if masked on any, with
    the pending findings of each.
    """
    joined: dict[str, AnyValue] = {}
    for name in dict.fromkeys(name for state in states for name in state):
        values = [state.get(name) for state in states]
        if all(value is NONE for value in values):
            joined[name] = NONE
            continue
        values = [value for value in values if value is not NONE]
        first = values[0]
        if all(value is first for value in values):
            if first is not None:
                joined[name] = first
        elif isinstance(first, Mask) and all(
            isinstance(value, Mask) and value.but(origin=first.origin) == first for value in values
        ):
            joined[name] = first
        elif ones_set_or_not(values):
            # torch.zeros(...) with ones set in a loop that may not run: a 0/1 mask either way
            joined[name] = next(value for value in values if isinstance(value, Mask))
        elif any(isinstance(value, KeyCat) for value in values):
            cat = next(value for value in values if isinstance(value, KeyCat))
            joined[name] = dataclasses.replace(
                cat, maybe=not all(isinstance(value, KeyCat) for value in values) or cat.maybe
            )
        elif all(isinstance(value, Scores) for value in values) or (
            any(isinstance(value, Scores) and value.pending for value in values)
            and all(
                isinstance(value, (Scores, Tensor, ScaledTensor, Transposed, Param))
                or value is None
                for value in values
            )
        ):
            # scores on every path, or scores with a finding on one path and a plain tensor
            # on the other: the finding holds on its path
            scores = [value for value in values if isinstance(value, Scores)]
            pending = tuple(dict.fromkeys(hit for one in scores for hit in one.pending))
            joined[name] = dataclasses.replace(
                scores[0],
                scaled=all(one.scaled for one in scores),
                ndim=scores[0].ndim if all(one.ndim == scores[0].ndim for one in scores) else None,
                masked=any(one.masked for one in scores),
                pending=pending,
                # a penalty on every path: one taken on some paths only may be taken again on
                # the same paths after a softcap, which the join cannot tell
                penalised=scores[0].penalised if all(one.penalised for one in scores) else None,
                scaled_by=scores[0].scaled_by if all(one.scaled_by for one in scores) else None,
            )
        else:
            joined[name] = UNKNOWN
    return joined


def retype(value: AnyValue | None, dtype: str, origin: Origin) -> AnyValue | None:
    """A mask in another dtype (an additive mask as Boolean: True where it was not 0)."""
    if not isinstance(value, Mask):
        return None
    if value.kind == "additive" and dtype == "bool":
        return Mask(
            "mask",
            origin,
            "bool",
            true_set=value.true_set,
            meaning="forbidden" if value.true_set is None else None,
        )
    return value.but(dtype=dtype) if value.kind == "mask" else value


def is_zero_one(value: object) -> bool:
    """A 0/1 mask (not an additive one, not known only by its name)."""
    return (
        isinstance(value, Mask)
        and value.kind == "mask"
        and not value.by_name
        and value.dtype in ("float", "int", "bool")
    )


def _narrowest_overflowed(const: Const) -> str:
    """The widest of float16 and bfloat16 that cannot hold ``const``."""
    return "bfloat16" if abs(const.value) > BFLOAT16_MAX else "float16"


def _overflows_float16(const: Const) -> bool:
    return (
        abs(const.value) > FLOAT16_MAX
        and not math.isinf(const.value)
        and not const.finfo
        and not const.relative
    )


def _wide(dtype: str) -> bool:
    """Whether a dtype written as ``dtype`` is float32 or float64 for certain."""
    return dtype.strip().endswith(("float32", "float64", "double", ".float")) or dtype in (
        "float",
        "torch.float",
    )


def _number(value: float) -> str:
    """A constant as a reader wrote it: -1e+10 as -1e10, -3.4028234663852886e+38 as -3.4e38."""
    text = f"{value:.2g}" if abs(value) >= 1e5 else f"{value:g}"
    return text.replace("e+", "e")


def _masked(target: AnyValue | None) -> AnyValue | None:
    return dataclasses.replace(target, masked=True) if isinstance(target, Scores) else None


def _penalise(scores: Scores, at: Origin) -> Scores:
    """Scores given a mask's penalty at ``at``: a softcap or a weak fill before it is replaced."""
    pending = tuple(
        hit for hit in scores.pending if getattr(hit, "code", None) not in ("AM203", "AM403")
    )
    return dataclasses.replace(scores, penalised=at, pending=pending)


@dataclass(frozen=True)
class Hit:
    """A rule's finding before positions are known: the node, what it is, what it came from."""

    code: str
    node: ast.AST
    subject: str
    expects: str
    facts: tuple[tuple[str, Origin], ...] = ()
    fix: str | None = None
    narrow: str | None = None
    """For a value a dtype cannot hold: the widest dtype that cannot (``"float16"``, or
    ``"bfloat16"`` for a constant beyond bfloat16's range too); the finding stands only where
    the code runs in that dtype or a narrower one."""
    rows: tuple[str, ...] = ()
    """The rows of the API argument the finding is at, where the pass knows it: a finding at
    another framework's API cites them instead of its rule's PyTorch rows."""
