"""Where the heads lie: the axes of a query or key as its heads are split off and merged.

A projection's output ``[B, L, H·d]`` viewed as ``(B, L, H, d)`` has the axes ``BLHd``;
``transpose(1, 2)`` makes them ``BHLd`` and a view as ``(B * H, L, d)`` merges the first two,
batch-major: row ``b·H + h``.  ``permute(2, 0, 1, 3)`` first makes them ``HBLd``, and the same
merge is head-major: row ``h·B + b``.  A mask tiled for the heads must follow the scores:
``repeat_interleave(H, dim=0)`` is batch-major, ``repeat(H, 1, 1)`` head-major.

>>> moved(("B", "L", "H", "d"), "transpose", [1, 2])
('B', 'H', 'L', 'd')
>>> moved(("B", "L", "H", "d"), "permute", [2, 0, 1, 3])
('H', 'B', 'L', 'd')
>>> major(("B", "H", "L", "d")), major(("H", "B", "L", "d")), major(("B", "L", "H", "d"))
('batch', 'head', None)
"""

from __future__ import annotations

from typing import Literal

from attention.review import ops

Axes = tuple[str, ...]
Major = Literal["batch", "head"]

SPLIT: Axes = ("B", "L", "H", "d")
"""A projection's output viewed as (batch, positions, heads, head size)."""


def moved(axes: Axes, method: str, literals: list[int | None]) -> Axes | None:
    """The axes after ``transpose(a, b)`` / ``swapaxes`` / ``permute(...)``, where literal."""
    rank = len(axes)
    if any(value is None or not -rank <= value < rank for value in literals):
        return None
    places = [value % rank for value in literals if value is not None]
    if ops.moves(method, "swap") and len(places) == 2:
        swapped = list(axes)
        one, other = places
        swapped[one], swapped[other] = swapped[other], swapped[one]
        return tuple(swapped)
    if ops.moves(method, "permute") and sorted(places) == list(range(rank)):
        return tuple(axes[place] for place in places)
    return None


def major(axes: Axes) -> Major | None:
    """How merging the first two axes orders the rows: by batch item first, or by head."""
    if axes[2:] != ("L", "d"):
        return None
    if axes[:2] == ("B", "H"):
        return "batch"
    if axes[:2] == ("H", "B"):
        return "head"
    return None


def describe(order: Major) -> str:
    """The row a merged axis gives batch item b and head h."""
    return "b·H + h (batch-major)" if order == "batch" else "h·B + b (head-major)"
