"""Concatenation: ``torch.cat`` of heads, of tiled masks, of rows, or of keys joined to a cache."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review.ops import head_axes, positions
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import KeyCat
from attention.review.syntax import int_literal
from attention.review.values import Dim, Tensor

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


@operation("cat", "concat", "concatenate")
def concatenated(ev: Interpreter, c: Call) -> Reading:
    """``torch.cat``: heads stacked, a mask tiled, rows joined, or keys joined to a cache."""
    node, args, values, qualified, short, origin = (
        c.node,
        c.args,
        c.values,
        c.qualified,
        c.short,
        c.origin,
    )
    if short in ("cat", "concat", "concatenate") and qualified and qualified.startswith("torch"):
        joined = args[0].value if args else None
        stacked = head_axes.heads_stacked(ev, node, values, joined)
        if stacked is not None:
            return stacked
        tiled = head_axes.tiled_list(ev, joined)
        if tiled is not None:
            axis_arg, _ = ev.argument(node, values, 1, "dim")
            if axis_arg is None or int_literal(axis_arg.value) == 0:
                # torch.cat([mask] * num_heads): the copies one after another, head-major
                return tiled.but(repeated=origin)
        if isinstance(joined, (ast.List, ast.Tuple)) and len(joined.elts) >= 2:
            axis_arg, _ = ev.argument(node, values, 1, "dim")
            axis = int_literal(axis_arg.value) if axis_arg is not None else 0
            parts = [ev.ev(element) for element in joined.elts]
            ranks = {len(part.sizes) for part in parts if isinstance(part, Tensor) and part.sizes}
            if axis == -1 or (len(ranks) == 1 and axis == next(iter(ranks)) - 1):
                # features joined: the same positions, wider vectors
                if len(ranks) == 1:
                    rank = next(iter(ranks))
                    return Tensor(origin, sizes=tuple(Dim(origin) for _ in range(rank)))
                return None
            if axis in (0, -2):
                joined_rows = positions.rows_joined(ev, node, parts)
                if joined_rows is not None:
                    return joined_rows
            return KeyCat(origin, axis=axis)
        return None
    return NOT_MINE
