"""The registry of torch operations: each reading filed under the names it reads.

A reading is a small function of the pass and a :class:`Call` that says what the call's result
is known to be, or :data:`NOT_MINE` where the call is not the case it reads, or the call
again with something it learned about it (a value for its receiver), which the readings after
it are offered instead.  It is registered
with :func:`operation` under the names of the operations it reads (``"masked_fill"``, every
name of a table's rows) and, where it reads one kind of value only, that kind (a
:class:`~attention.review.provenance.Mask`, the scores): a call is offered to the readings
filed under its own names (``x.f(…)``, ``torch.f(x, …)`` and ``f(…)`` alike are ``f``) whose
kind its value is, and to no other.  A reading of no name reads by kind alone, after every
named one.  Where two modules read the same name and kind, :data:`PRECEDENCE` says whose
reading is tried first; within a module, the order they are written in.

>>> from attention.review.ops import calls  # every reading registered
>>> [entry.handler.__name__ for entry in readings({"masked_fill"}, None)]
['masked_fill_call']
>>> [entry.handler.__name__ for entry in readings({"where"}, None)]
['where_call']
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from attention.review.provenance import Origin
from attention.review.syntax import Arg
from attention.review.values import AnyValue

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

__all__ = [
    "NOT_MINE",
    "PRECEDENCE",
    "Call",
    "Entry",
    "NotMine",
    "Reading",
    "dispatch",
    "operation",
    "readings",
    "shorts",
]


class NotMine:
    """What a reading answers for a call that is not the case it reads."""


NOT_MINE: Final = NotMine()


@dataclass(frozen=True)
class Call:
    """A call as the pass met it: its node, arguments and their values, and its names.

    ``qualified``: the dotted name after the file's imports (``torch.nn.functional.softmax``);
    ``method``: the attribute called (``softmax`` of ``x.softmax``); ``short``: the last part
    of ``qualified``; ``function``: the tensor method a ``torch.f(x)`` stands for;
    ``receiver``: the value a method is called on; ``tensor``: the tensor acted on, ``x`` in
    both ``torch.f(x)`` and ``x.f()``.
    """

    node: ast.Call
    func: ast.expr
    args: list[Arg]
    values: list[AnyValue | None]
    qualified: str | None
    method: str | None
    short: str | None
    function: str | None
    receiver: AnyValue | None
    tensor: AnyValue | None
    origin: Origin

    def names(self) -> frozenset[str]:
        """The names the call is filed under: ``f`` of ``x.f(…)``, ``torch.f(…)``, ``f(…)``."""
        func = self.func
        called = func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name):
            called = func.id
        return frozenset(name for name in (called, self.short) if name is not None)


Reading = AnyValue | None | NotMine | Call
"""A reading's answer: what the result is known to be (None: nothing is), NOT_MINE, or the
call with something learned about it, for the readings after this one."""
Handler = Callable[["Interpreter", Call], Reading]

PRECEDENCE: Final = (
    "makers",
    "head_axes",
    "normalisation",
    "api_calls",
    "modules",
    "fills",
    "triangles",
    "dtypes",
    "arithmetic",
    "axes",
    "products",
    "concat",
    "constructors",
)
"""Whose reading of a name is tried first, where two modules read the same name and kind."""


@dataclass(frozen=True)
class Entry:
    """One registered reading: the names and kinds of value it reads, and where it stands."""

    names: frozenset[str]
    kinds: tuple[type, ...]
    handler: Handler
    rank: tuple[int, int]


_BY_NAME: dict[str, list[Entry]] = {}
_BY_KIND: list[Entry] = []
_CACHE: dict[tuple[frozenset[str], type | None], tuple[Entry, ...]] = {}


def operation(*names: str, kinds: tuple[type, ...] = ()) -> Callable[[Handler], Handler]:
    """Register a reading under ``names`` (every name it reads) for values of ``kinds``."""

    def register(handler: Handler) -> Handler:
        module = handler.__module__.rsplit(".", 1)[-1]
        if module not in PRECEDENCE:
            raise ValueError(f"{handler.__module__} is not named in PRECEDENCE")
        count = sum(len(entries) for entries in _BY_NAME.values()) + len(_BY_KIND)
        # a reading by kind alone is tried after every named one
        first = PRECEDENCE.index(module) if names else len(PRECEDENCE)
        entry = Entry(frozenset(names), kinds, handler, (first, count))
        if names:
            for name in entry.names:
                _BY_NAME.setdefault(name, []).append(entry)
        else:
            _BY_KIND.append(entry)
        _CACHE.clear()
        return handler

    return register


def readings(names: Iterable[str], receiver: AnyValue | None) -> tuple[Entry, ...]:
    """The readings a call of these names on this value is offered to, in the order tried."""
    key = (frozenset(names), type(receiver) if receiver is not None else None)
    found = _CACHE.get(key)
    if found is None:
        named = {
            id(entry): entry
            for name in key[0]
            for entry in _BY_NAME.get(name, ())
            if not entry.kinds or isinstance(receiver, entry.kinds)
        }
        by_kind = [entry for entry in _BY_KIND if isinstance(receiver, entry.kinds)]
        found = _CACHE[key] = (*sorted(named.values(), key=lambda e: e.rank), *by_kind)
    return found


def dispatch(ev: Interpreter, call: Call) -> AnyValue | None:
    """The first reading of the call that is not NOT_MINE; None where none reads it.

    A reading that hands the call on with something learned about it is followed by the
    readings after it that the call, as it is now, is offered to.
    """
    after = (-1, -1)
    while True:
        for entry in readings(call.names(), call.receiver):
            if entry.rank <= after:
                continue
            found = entry.handler(ev, call)
            if isinstance(found, Call):
                call, after = found, entry.rank
                break
            if not isinstance(found, NotMine):
                return found
        else:
            return None


def shorts(qualified: Iterable[str]) -> tuple[str, ...]:
    """The last part of each dotted name: the name a call of it is filed under.

    >>> shorts(["torch.softmax", "torch.nn.functional.softmax"])
    ('softmax', 'softmax')
    """
    return tuple(name.rpartition(".")[2] for name in qualified)
