"""Axes moved, added, merged or kept: what a transpose, view, unsqueeze or copy makes of a value."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review import heads, ops
from attention.review.events import HeadsSplit, emit
from attention.review.ops import head_axes, normalisation
from attention.review.ops.products import _folds_the_keys
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import Embedded, Mask, Origin, Scores, Triangle
from attention.review.syntax import int_literal, last_name
from attention.review.values import Dim, FlatMap, Param, ScaledTensor, Tensor, Transposed

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


@operation("unsqueeze", "unsqueeze_", kinds=(Mask,))
def mask_unsqueezed(ev: Interpreter, c: Call) -> Reading:
    """``mask.unsqueeze(dim)``: a new axis, and whether the keys stay last."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if method in ("unsqueeze", "unsqueeze_") and isinstance(receiver, Mask):
        fresh = receiver.ndim == 3 and receiver.true_set is None and receiver.head_axes is None
        receiver = receiver.but(unranked_at=None, unranked_ndim=None, head_axes=None)
        axis = int_literal(args[0].value) if args else None
        if fresh and axis == 0:
            # m.unsqueeze(0) of a per-sample [B, L, S] mask: a new first axis, for the heads
            return receiver.but(ndim=4, head_axes=("1", "B", "L", "S"))
        last = axis == -1 or (receiver.ndim is not None and axis == receiver.ndim)
        ndim = receiver.ndim + 1 if receiver.ndim is not None else None
        moved = receiver.moved_at
        if last and receiver.key_last and receiver.key_padding:
            # unsqueeze(-1) moves the keys off the last axis whatever the rank; a rank that
            # comes from a name (unsqueeze(2) of a [B, S] `key_padding_mask`) is a guess
            moved = origin if axis == -1 or not receiver.by_name else moved
        return receiver.but(
            key_last=receiver.key_last and not last,
            ndim=ndim,
            moved_at=moved,
            empty_row=None if last else receiver.empty_row,
        )
    return NOT_MINE


@operation("expand", kinds=(Mask,))
def mask_expanded(ev: Interpreter, c: Call) -> Reading:
    """``mask.expand(...)`` of a mask of unknown rank: the rank the expand shows."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if (
        method == "expand"
        and isinstance(receiver, Mask)
        and receiver.unranked_at is not None
        and args
        and not any(arg.star or arg.keyword for arg in args)
    ):
        # expand(-1, heads, -1, n) shows the rank the subscript gave
        shape = args[0].value if len(args) == 1 else None
        count = len(shape.elts) if isinstance(shape, (ast.Tuple, ast.List)) else len(args)
        return receiver.ranked(count, origin)
    return NOT_MINE


@operation(
    *ops.names(ops.keeps),
    kinds=(
        Mask,
        Scores,
        Embedded,
    ),
)
def kept(ev: Interpreter, c: Call) -> Reading:
    """A copy, a move to another device, a broadcast: the mask, scores or layout as they were."""
    method, receiver = c.method, c.receiver
    if ops.keeps(method) and isinstance(receiver, (Mask, Scores, Embedded)):
        return receiver
    return NOT_MINE


@operation(*ops.names(ops.keeps_dtype), kinds=(Tensor,))
def dtype_kept(ev: Interpreter, c: Call) -> Reading:
    """A tensor of known dtype through a method that keeps it."""
    method, receiver, origin = c.method, c.receiver, c.origin
    if isinstance(receiver, Tensor) and receiver.dtype is not None and ops.keeps_dtype(method):
        # the dtype survives a change of shape, a copy or an in-place fill
        sizes = receiver.sizes if ops.keeps(method) else None
        return Tensor(origin, receiver.dtype, receiver.wide, sizes=sizes)
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "swap", "t")), kinds=(Mask,))
def triangle_transposed(ev: Interpreter, c: Call) -> Reading:
    """A triangle transposed: the other triangle."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if (
        ops.moves(method, "swap", "t")
        and isinstance(receiver, Mask)
        and receiver.true_set is not None
    ):
        # the transpose of a triangle is the other triangle: triu(d)ᵀ = tril(-d)
        axes = [int_literal(arg.value) for arg in args]
        if ops.moves(method, "t") or sorted(axes, key=lambda a: a or 0) in ([0, 1], [-2, -1]):
            flipped = Triangle(not receiver.true_set.lower, -receiver.true_set.diagonal)
            return receiver.but(true_set=flipped, origin=origin, triangle_at=origin)
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "reshape")), kinds=(Tensor,))
def features_reshaped(ev: Interpreter, c: Call) -> Reading:
    """A tensor whose features are split into heads by a view."""
    node, args, values, method, receiver = c.node, c.args, c.values, c.method, c.receiver
    if ops.moves(method, "reshape") and isinstance(receiver, Tensor) and receiver.features:
        emit(ev, HeadsSplit(receiver.features, node, args, values))
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "reshape")))
def reshaped(ev: Interpreter, c: Call) -> Reading:
    """``x.view(...)`` / ``reshape(...)``: heads split off, or merged again."""
    node, args, values, method, receiver = c.node, c.args, c.values, c.method, c.receiver
    if ops.moves(method, "reshape"):
        split = head_axes.heads_view(ev, receiver, node, args, values)
        if split is not None:
            return split
    return NOT_MINE


@operation("contiguous", "clone", "to", kinds=(Tensor,))
def heads_kept(ev: Interpreter, c: Call) -> Reading:
    """``contiguous``, ``clone``, ``to`` of a tensor with known axes: the axes kept."""
    method, receiver, origin = c.method, c.receiver, c.origin
    if (
        method in ("contiguous", "clone", "to")
        and isinstance(receiver, Tensor)
        and (receiver.axes or receiver.major)
    ):
        return dataclasses.replace(receiver, origin=origin)
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "reshape")), kinds=(Mask,))
def mask_reshaped(ev: Interpreter, c: Call) -> Reading:
    """``mask.view(...)``: a mask reshaped, the keys kept last or not."""
    args, method, receiver = c.args, c.method, c.receiver
    if ops.moves(method, "reshape") and isinstance(receiver, Mask):
        return receiver.but(
            key_padding=False,
            ndim=len(args) or None,
            unranked_at=None,
            empty_row=None,
            head_axes=None,
        )
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "reshape")), kinds=(Scores,))
def scores_reshaped(ev: Interpreter, c: Call) -> Reading:
    """``scores.view(...)``: scores reshaped, the keys kept last or not."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.moves(method, "reshape") and isinstance(receiver, Scores):
        if receiver.key_at != -1:
            return None  # the keys moved, then reshaped: where they lie is not known
        # a new shape: as many axes as sizes given (a single argument may be a whole shape)
        ndim = len(args) if len(args) >= 2 else None
        merged = receiver.merged
        if receiver.key_axes == 1 and _folds_the_keys(receiver.ndim, [a.value for a in args]):
            merged = origin
        return dataclasses.replace(receiver, ndim=ndim, merged=merged)
    return NOT_MINE


@operation("flatten", kinds=(Scores,))
def scores_flattened(ev: Interpreter, c: Call) -> Reading:
    """``scores.flatten(...)``: scores with axes merged."""
    node, values, method, receiver, origin = c.node, c.values, c.method, c.receiver, c.origin
    if method == "flatten" and isinstance(receiver, Scores):
        if receiver.key_at != -1:
            return None  # the keys moved, then flattened: where they lie is not known
        return normalisation.flattened(ev, receiver, node, values, origin)
    return NOT_MINE


@operation("flatten")
def feature_map_flattened(ev: Interpreter, c: Call) -> Reading:
    """``x.flatten(2)`` of a tensor of no known role: a feature map's positions made one axis."""
    node, values, method, receiver, origin = c.node, c.values, c.method, c.receiver, c.origin
    if method != "flatten" or not (receiver is None or isinstance(receiver, (Param, Tensor))):
        return NOT_MINE
    if isinstance(receiver, Tensor) and (receiver.dtype in ("bool", "int") or receiver.holds):
        return NOT_MINE
    start, _ = ev.argument(node, values, 0, "start_dim")
    end, _ = ev.argument(node, values, 1, "end_dim")
    if start is None or int_literal(start.value) != 2 or end is not None:
        return NOT_MINE
    return FlatMap(Origin(origin.node, "a feature map [B, C, H, W] flattened to [B, C, H·W]"))


@operation(*ops.names(lambda n: ops.moves(n, "swap", "permute")), kinds=(FlatMap,))
def feature_map_turned(ev: Interpreter, c: Call) -> Reading:
    """``x.flatten(2).transpose(1, 2)``: its positions on axis 1, batch first, ``[B, H·W, C]``.

    ``.permute(2, 0, 1)`` makes it sequence first, ``[H·W, B, C]``, which nothing reports.
    """
    args, method, receiver = c.args, c.method, c.receiver
    if not isinstance(receiver, FlatMap):
        return NOT_MINE
    axes = [int_literal(arg.value) for arg in args]
    if any(axis is None for axis in axes):
        return None
    order = [axis % 3 for axis in axes if axis is not None]
    if (ops.moves(method, "swap") and sorted(order) == [1, 2]) or (
        ops.moves(method, "permute") and order == [0, 2, 1]
    ):
        reason = "a feature map [B, C, H, W] flattened and transposed: batch first, [B, H·W, C]"
        return Embedded(Origin(receiver.origin.node, reason))
    return None


@operation(
    "contiguous",
    kinds=(
        Scores,
        Transposed,
    ),
)
def contiguous(ev: Interpreter, c: Call) -> Reading:
    """``x.contiguous()`` of scores or a moved tensor: the same value."""
    method, receiver = c.method, c.receiver
    if method == "contiguous" and isinstance(receiver, (Scores, Transposed)):
        return receiver
    return NOT_MINE


@operation("rearrange")
def scaled_rearranged(ev: Interpreter, c: Call) -> Reading:
    """A scaled query through einops' ``rearrange``: still scaled."""
    func, args, values, origin = c.func, c.args, c.values, c.origin
    if (
        last_name(func) == "rearrange"
        and values
        and isinstance(values[0], ScaledTensor)
        and not args[0].keyword
    ):
        # einops' rearrange of a scaled query (its heads split off, or not): still scaled
        return dataclasses.replace(values[0], origin=origin)
    return NOT_MINE


@operation(*ops.names(ops.keeps_scale), kinds=(ScaledTensor,))
def scaled_kept(ev: Interpreter, c: Call) -> Reading:
    """A scaled query through a method that keeps its scale: still scaled."""
    method, receiver, origin = c.method, c.receiver, c.origin
    if isinstance(receiver, ScaledTensor) and ops.keeps_scale(method) and not ops.reorders(method):
        # a scaled query, its heads split off (or not): still scaled
        return dataclasses.replace(receiver, origin=origin)
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "swap")), kinds=(Scores,))
def scores_swapped(ev: Interpreter, c: Call) -> Reading:
    """Scores with two axes swapped: the keys stay last or not."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.moves(method, "swap") and isinstance(receiver, Scores):
        # the scores' other axes swapped (heads and queries): the keys stay last
        axes = [int_literal(arg.value) for arg in args]
        rank = receiver.ndim
        if (
            rank is None
            and receiver.key_axes == 1
            and len(axes) == 2
            and all(a is not None and a < 0 for a in axes)
        ):
            # counted from the end, as the key axis is: `s.transpose(-1, -2)` of any rank
            if receiver.key_at not in axes:
                return dataclasses.replace(receiver, origin=origin, major=None)
            other = axes[1] if axes[0] == receiver.key_at else axes[0]
            assert other is not None
            return dataclasses.replace(receiver, origin=origin, major=None, key_at=other)
        if rank is None or len(axes) != 2 or any(a is None or not -rank <= a < rank for a in axes):
            return None
        swapped = [a % rank for a in axes if a is not None]
        key = receiver.key_at % rank
        if receiver.key_axes == 1 and key in swapped and len(set(swapped)) == 2:
            # the key axis itself moved: it is now where the other axis was
            other = swapped[1] if swapped[0] == key else swapped[0]
            return dataclasses.replace(receiver, origin=origin, major=None, key_at=other - rank)
        if rank - 1 in swapped:
            return None
        return dataclasses.replace(receiver, origin=origin, major=None)
    return NOT_MINE


@operation(*ops.names(lambda n: ops.moves(n, "swap")), kinds=(Tensor,))
def tensor_swapped(ev: Interpreter, c: Call) -> Reading:
    """A tensor of known sizes with two axes swapped."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.moves(method, "swap") and isinstance(receiver, Tensor) and receiver.sizes:
        axes = [int_literal(arg.value) for arg in args]
        swapped = list(receiver.sizes)
        known = [a for a in axes if a is not None and -len(swapped) <= a < len(swapped)]
        if len(axes) == 2 and len(known) == 2:
            one, other = known
            swapped[one], swapped[other] = swapped[other], swapped[one]
            order = heads.moved(receiver.axes, method, axes) if receiver.axes else None
            rows = receiver.major if 0 not in (one % len(swapped), other % len(swapped)) else None
            return Transposed(origin, tuple(swapped), axes=order, major=rows, split=receiver.split)
        return Transposed(origin)
    return NOT_MINE


@operation(*ops.names(ops.reorders), kinds=(Mask,))
def mask_reordered(ev: Interpreter, c: Call) -> Reading:
    """A mask's axes reordered: what its entries mean stays, where the keys lie is unknown."""
    method, receiver, origin = c.method, c.receiver, c.origin
    if ops.reorders(method) and isinstance(receiver, Mask) and receiver.true_set is None:
        # its axes move, what its True entries mean does not; where the keys lie is unknown
        # a row of it is a column now
        return receiver.but(
            key_padding=False,
            key_last=True,
            moved_at=None,
            origin=origin,
            unranked_at=None,
            empty_row=None,
            head_axes=None,
        )
    return NOT_MINE


@operation(*ops.names(ops.reorders))
def reordered(ev: Interpreter, c: Call) -> Reading:
    """``transpose``, ``t``, ``permute`` of a tensor: its axes in their new order."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if ops.reorders(method):
        literals = [int_literal(arg.value) for arg in args]
        rank = _swapped_rank(method, literals)
        named = [axis for axis in literals if axis is not None]
        if (
            rank is None
            and ops.moves(method, "permute")
            and len(named) == len(literals)
            and sorted(named) == list(range(len(named)))
        ):
            rank = len(named)  # every axis named once: the rank is theirs
        sizes = tuple(Dim(origin) for _ in range(rank)) if rank is not None else None
        if isinstance(receiver, ScaledTensor) or (
            isinstance(receiver, Transposed) and receiver.scale is not None
        ):
            # a scaled query moved: still scaled, by the same scale
            return Transposed(origin, sizes, scaled=True, scale=receiver.scale)
        if isinstance(receiver, (Tensor, Transposed)) and receiver.axes is not None:
            order = heads.moved(receiver.axes, method, literals)
            sizes = sizes or tuple(Dim(origin) for _ in receiver.axes)
            return Transposed(origin, sizes, axes=order, split=receiver.split)
        return Transposed(origin, sizes)
    return NOT_MINE


def _swapped_rank(method: str, axes: list[int | None]) -> int | None:
    """The rank a swap of the last two axes written with positive indices shows.

    ``k.transpose(2, 3)`` swaps the last two axes of a 4-D key (``transpose(1, 2)``: of a 3-D
    one); ``k.permute(0, 1, 3, 2)`` keeps every other axis in place.  Negative or missing
    indices show no rank.
    """
    if any(axis is None or axis < 0 for axis in axes):
        return None
    known = [axis for axis in axes if axis is not None]
    if ops.moves(method, "swap") and len(known) == 2:
        low, high = sorted(known)
        return high + 1 if high == low + 1 and low >= 1 else None
    if ops.moves(method, "permute") and len(known) >= 3:
        rank = len(known)
        return rank if known == [*range(rank - 2), rank - 1, rank - 2] else None
    return None


@operation("flip", "fliplr", "flipud", kinds=(Mask,))
def mask_flipped(ev: Interpreter, c: Call) -> Reading:
    r"""``mask.flip(dims)``: the entries in reverse order along ``dims``; True means what it did.

    A padding mask read from the other end still marks padding, so what the rules know of
    its convention, dtype and axes holds; which entries form a triangle, or which row is
    empty, moves with the flip and is no longer known.

    >>> from attention.review.check import check_source
    >>> source = (
    ...     "import torch.nn.functional as F\n"
    ...     "def attend(q, k, v, ids, pad_id):\n"
    ...     "    padding = (ids == pad_id)[:, None, None, :]\n"
    ...     "    padding = padding.flip(-1)\n"
    ...     "    return F.scaled_dot_product_attention(q, k, v, attn_mask=padding)\n"
    ... )
    >>> [(finding.code, finding.line) for finding in check_source(source, "case.py")]
    [('AM101', 5)]
    """
    assert isinstance(c.receiver, Mask)
    return c.receiver.but(
        origin=c.origin,
        true_set=None,
        triangle_at=None,
        empty_row=None,
        row_value=None,
    )
