"""Calls of torch operations and attention APIs, read by what they are called.

The pass hands each call it meets here, with its arguments already evaluated, twice: first
:func:`before`, for what must be read before the checked code's own functions are looked for
(a scale kept through a method, positions), then, when the call is none of those functions,
:func:`operation`.  ``torch.f(x, …)`` and ``x.f(…)`` arrive as the same operation.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Final

from attention.review import api_calls, ops, state
from attention.review.ops import (
    arithmetic,
    axes,
    concat,
    constructors,
    dtypes,
    fills,
    head_axes,
    makers,
    modules,
    normalisation,
    positions,
    products,
    registry,
    triangles,
)
from attention.review.ops.registry import NOT_MINE, Call, NotMine
from attention.review.provenance import (
    Mask,
    Scale,
)
from attention.review.values import (
    AnyValue,
    Positions,
    ScaledTensor,
    Transposed,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


READERS: Final = (
    makers,
    head_axes,
    normalisation,
    api_calls,
    modules,
    fills,
    triangles,
    dtypes,
    arithmetic,
    axes,
    products,
    concat,
    constructors,
)
"""The modules whose readings the registry holds (importing one registers its readings), in
the registry's order of precedence."""


def before(ev: Interpreter, c: Call) -> NotMine | AnyValue | None:
    """The operations read before the pass looks for a function of the checked code."""
    node, func, values, qualified = c.node, c.func, c.values, c.qualified
    method, receiver, origin = c.method, c.receiver, c.origin
    if qualified == "torch.arange":
        return Positions(origin, "cols", flat=True)
    made = makers.made(ev, c)  # before a package's own mask function is read as a helper
    if made is not None:
        return made
    if isinstance(receiver, Scale) and ops.keeps_scale(method):
        # `q = q * dim ** -0.5` of a query the pass does not know, then its heads split
        if ops.reorders(method):
            return Transposed(origin, scaled=True)
        return ScaledTensor(origin)
    if (
        method is not None
        and method.endswith("_")
        and isinstance(receiver, Mask)
        and receiver.empty_row is not None
        and isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
    ):
        # allowed.fill_diagonal_(True), m.masked_fill_(...): its rows may have changed
        state.bind(ev, func.value, receiver.but(empty_row=None, row_value=None))
    if isinstance(receiver, Positions) and method is not None:
        return positions.positions_method(ev, receiver, method, node, values)
    return NOT_MINE


def operation(ev: Interpreter, c: Call) -> AnyValue | None:
    """A torch operation, an attention API or a library helper: what its result is known to be."""
    return registry.dispatch(ev, c)
