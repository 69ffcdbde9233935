"""The torch operations the checker reads as data: which keep a value, retype it or move its axes.

One row per tensor method: what the checker makes of ``x.f(...)``.  A row of category ``keep``
returns the value it was given (a copy, another device); ``dtype`` gives the value another
dtype (``float``, ``bool``, ``to(dtype)``); ``axes`` moves, adds, drops or selects axes and
keeps the dtype (``transpose``, ``view``, ``unsqueeze``); ``fill`` writes new entries and keeps
the dtype and the shape.  The interpreter asks these rows instead of naming the methods itself,
so a method it learns is a row here.  What a rule makes of a moved mask (which axis the keys are
on now, whose triangle it is) stays with the interpreter's transfer code.

``torch.f(x, ...)`` is the method ``x.f(...)``: :func:`function_form` says which ``f`` a call
names that way, once for every operation that is read in either form.

>>> row("transpose").category, row("transpose").axes
('axes', 'swap')
>>> keeps("detach"), keeps("expand"), keeps("view")
(True, True, False)
>>> gives("half"), gives("bool"), gives("to")
('float', 'bool', None)
>>> function_form("torch.masked_fill"), function_form("torch.nn.functional.pad")
('masked_fill', None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeGuard

__all__ = [
    "OPS",
    "Axes",
    "Category",
    "Op",
    "dtype_argument",
    "function_form",
    "gives",
    "keeps",
    "keeps_dtype",
    "keeps_scale",
    "moves",
    "named_dtype",
    "names",
    "reorders",
    "row",
    "widens",
]

Category = Literal["keep", "dtype", "axes", "fill"]
"""What an operation does to a value: returns it as it was, retypes it, moves its axes, or
writes new entries into it."""
Dtype = Literal["bool", "int", "float"]
"""The dtypes the checker tells apart (``provenance.Dtype``)."""
Axes = Literal[
    "swap",  # transpose(a, b), swapaxes(a, b): two named axes trade places
    "t",  # t(): the two axes of a matrix trade places
    "permute",  # permute(...): every axis named in its new place
    "reshape",  # view(...), reshape(...): a new shape, the same entries in order
    "unflatten",  # unflatten(dim, sizes): one axis split in several
    "flatten",  # flatten(start, end): several axes merged into one
    "insert",  # unsqueeze(dim): a new axis of size 1
    "remove",  # squeeze(dim): an axis of size 1 dropped
    "broadcast",  # expand(...), expand_as(y): size-1 axes repeated without a copy
    "tile",  # repeat(...): the whole tensor tiled along its axes
    "reverse",  # flip(dims): the order along axes reversed
    "select",  # narrow(...), index_select(...): part of an axis kept
]
"""How an ``axes`` operation moves the axes."""


@dataclass(frozen=True)
class Op:
    """One tensor method as the checker reads it.

    ``dtype`` (``dtype`` rows): the dtype the method's name gives; ``None`` where its arguments
    say (``to(torch.bool)``, ``type(...)``).  ``like``: the dtype is another tensor's
    (``type_as``), read as floating point, what a mask is cast to beside its scores.  ``wide``:
    float32 or wider, where a fill of -1e9 fits.  ``axes`` (``axes`` rows): how they move.
    ``dtype_kept``: a tensor of known dtype keeps it through the method (the swaps and
    ``unflatten`` are read further on, as a moved query or key, which carries no dtype).
    ``scaled``: a query scaled before the method is still scaled after it (its heads split off,
    moved or cast).

    >>> row("float").wide, row("half").wide
    (True, False)
    """

    name: str
    category: Category
    dtype: Dtype | None = None
    like: bool = False
    wide: bool = False
    axes: Axes | None = None
    dtype_kept: bool = True
    scaled: bool = False


_ROWS: Final = (
    # keep: the same value back (a copy, another device, the graph cut off)
    Op("contiguous", "keep", scaled=True),
    Op("clone", "keep"),
    Op("detach", "keep"),
    Op("cuda", "keep"),
    Op("cpu", "keep"),
    Op("to_dense", "keep"),
    Op("requires_grad_", "keep"),
    # dtype: by the method's name, by its arguments, or another tensor's
    Op("float", "dtype", "float", wide=True),
    Op("double", "dtype", "float", wide=True),
    Op("half", "dtype", "float"),
    Op("bfloat16", "dtype", "float"),
    Op("long", "dtype", "int"),
    Op("int", "dtype", "int"),
    Op("byte", "dtype", "int"),
    Op("short", "dtype", "int"),
    Op("char", "dtype", "int"),
    Op("bool", "dtype", "bool"),
    Op("to", "dtype", scaled=True),
    Op("type", "dtype"),
    Op("type_as", "dtype", "float", like=True, scaled=True),
    # axes: moved, added, dropped, broadcast or selected; the dtype stays
    Op("transpose", "axes", axes="swap", dtype_kept=False, scaled=True),
    Op("swapaxes", "axes", axes="swap", dtype_kept=False, scaled=True),
    Op("t", "axes", axes="t", dtype_kept=False, scaled=True),
    Op("permute", "axes", axes="permute", scaled=True),
    Op("view", "axes", axes="reshape", scaled=True),
    Op("reshape", "axes", axes="reshape", scaled=True),
    Op("unflatten", "axes", axes="unflatten", dtype_kept=False, scaled=True),
    Op("flatten", "axes", axes="flatten"),
    Op("unsqueeze", "axes", axes="insert"),
    Op("squeeze", "axes", axes="remove"),
    Op("expand", "axes", axes="broadcast"),
    Op("expand_as", "axes", axes="broadcast"),
    Op("repeat", "axes", axes="tile"),
    Op("flip", "axes", axes="reverse"),
    Op("narrow", "axes", axes="select"),
    Op("index_select", "axes", axes="select"),
    # fill: new entries, the same dtype and shape (what each fill means is the fill's own code)
    Op("zero_", "fill"),
    Op("fill_", "fill"),
    Op("masked_fill", "fill"),
    Op("masked_fill_", "fill"),
)

OPS: Final[Mapping[str, Op]] = {op.name: op for op in _ROWS}
"""Every row, by method name."""


def row(name: str | None) -> Op | None:
    """The row of a method name, or ``None`` where the table has none.

    >>> row("clone").category
    'keep'
    >>> row("softmax") is None
    True
    """
    return OPS.get(name) if name is not None else None


def keeps(name: str | None) -> bool:
    """Whether a mask or the scores come back from the method as they were.

    A copy or a move to another device keeps every fact; so does a broadcast (``expand``), which
    repeats entries without changing what any of them means.
    """
    op = row(name)
    return op is not None and (op.category == "keep" or op.axes == "broadcast")


def keeps_dtype(name: str | None) -> bool:
    """Whether a tensor of known dtype keeps it through the method (its sizes may change)."""
    op = row(name)
    return op is not None and op.category in ("keep", "axes", "fill") and op.dtype_kept


def gives(name: str | None) -> Dtype | None:
    """The dtype a ``dtype`` row gives (another tensor's, for ``type_as``: floating point)."""
    op = row(name)
    return op.dtype if op is not None and op.category == "dtype" else None


def named_dtype(name: str | None) -> Dtype | None:
    """The dtype the method's own name gives: ``float()``, ``half()``, ``long()``, ``bool()``."""
    op = row(name)
    return op.dtype if op is not None and op.category == "dtype" and not op.like else None


def dtype_argument(name: str | None) -> bool:
    """Whether the method's arguments say the dtype it gives (``to(...)``, ``type(...)``)."""
    op = row(name)
    return op is not None and op.category == "dtype" and op.dtype is None


def widens(name: str | None) -> bool:
    """Whether the method gives float32 or wider (``float()``, ``double()``)."""
    op = row(name)
    return op is not None and op.wide


def moves(name: str | None, *how: Axes) -> TypeGuard[str]:
    """Whether the method moves axes (in one of the ways named, where any are).

    >>> moves("permute"), moves("permute", "swap", "t"), moves("view", "reshape")
    (True, False, True)
    """
    op = row(name)
    return op is not None and op.axes is not None and (not how or op.axes in how)


def reorders(name: str | None) -> TypeGuard[str]:
    """Whether the method reorders the axes it keeps (``transpose``, ``t``, ``permute``)."""
    return moves(name, "swap", "t", "permute")


def keeps_scale(name: str | None) -> bool:
    """Whether a query scaled before the method is still scaled after it."""
    op = row(name)
    return op is not None and op.scaled


def names(reads: Callable[[str], object]) -> tuple[str, ...]:
    """The names of the rows a question answers: ``names(widens)`` is ``('float', 'double')``.

    >>> names(widens), names(reorders)
    (('float', 'double'), ('transpose', 'swapaxes', 't', 'permute'))
    """
    return tuple(name for name in OPS if reads(name))


def function_form(qualified: str | None) -> str | None:
    """``f`` where a call is ``torch.f(x, ...)``: the method ``x.f(...)``.

    Its first argument is the tensor a method would be called on; the rest are the method's.

    >>> function_form("torch.nan_to_num"), function_form("torch.nn.functional.softmax")
    ('nan_to_num', None)
    >>> function_form("torch.Tensor.masked_fill")
    'masked_fill'
    """
    if qualified is None or not qualified.startswith("torch."):
        return None
    # torch.Tensor.f(x, ...), the method called unbound, is x.f(...) too
    name = qualified.removeprefix("torch.").removeprefix("Tensor.")
    return name if "." not in name else None
