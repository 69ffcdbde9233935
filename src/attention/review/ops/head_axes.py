"""Head axes: a mask or a tensor split into heads, tiled per head, viewed and merged again."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review import head_counts, heads, ops, state
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Mask,
    Origin,
    Scores,
    Weights,
)
from attention.review.roles import (
    _head_size,
    _length,
    _second,
)
from attention.review.syntax import (
    Arg,
    call_args,
    factors,
    int_literal,
    last_name,
)
from attention.review.values import (
    UNKNOWN,
    AnyValue,
    Dim,
    ScaledTensor,
    Tensor,
    Transposed,
    TupleValue,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def heads_stacked(
    ev: Interpreter, node: ast.Call, values: list[AnyValue | None], joined: ast.AST | None
) -> Tensor | None:
    """``torch.cat(torch.split(Q, d_head, dim=2), dim=0)``: TF1's heads stacked head-major.

    The features of ``[B, T, C]`` split into heads (by a head size, or ``chunk`` into a head
    count) along the last axis and joined along the batch: row ``h·B + b``.
    """
    if not (isinstance(joined, ast.Call) and last_name(joined.func) in ("split", "chunk")):
        return None
    axis_arg, _ = ev.argument(node, values, 1, "dim")
    if axis_arg is not None and int_literal(axis_arg.value) != 0:
        return None
    parts = call_args(joined)
    method = isinstance(joined.func, ast.Attribute) and ev.qualname(joined.func) is None
    sized = [arg for arg in parts if arg.keyword is None][0 if method else 1 :]
    along = next((arg for arg in parts if arg.keyword == "dim"), None)
    if along is None and len(sized) >= 2:
        along = sized[1]
    if not sized or along is None or int_literal(along.value) not in (2, -1):
        return None
    size = sized[0].value
    by = _head_size(size) if last_name(joined.func) == "split" else head_counts.counts(size)
    if not by:
        return None
    origin = Origin(node, "")
    return Tensor(origin, sizes=tuple(Dim(origin) for _ in range(3)), major="head")


def heads_view(
    ev: Interpreter,
    receiver: AnyValue | None,
    node: ast.Call,
    args: list[Arg],
    values: list[AnyValue | None],
) -> Tensor | None:
    """``x.view(B, L, H, d)``: the heads split off; ``view(B * H, L, d)``: merged again.

    The split: four sizes, a head count third (by its name), a length or -1 second.  The
    merge: three sizes, the first the product of the split's first and third sizes as
    written (``B * H`` or ``H * B``) or -1, of a tensor whose axes are known
    (:mod:`~attention.review.heads`); which order that gives rests on the code, not on
    names.  A scaled query keeps its scale instead.
    """
    if any(arg.keyword or arg.star for arg in args) or isinstance(receiver, ScaledTensor):
        return None
    sizes = [arg.value for arg in args]
    origin = Origin(node, "")
    if (
        len(sizes) == 4
        and head_counts.counts(sizes[2])
        and not head_counts.counts(sizes[0])
        and int_literal(sizes[0]) != -1
        and (int_literal(sizes[1]) == -1 or _length(sizes[1], values[1]) or _second(sizes[1]))
    ):
        return Tensor(
            origin,
            sizes=tuple(Dim(origin) for _ in sizes),
            axes=heads.SPLIT,
            split=(ev.code(sizes[0]), ev.code(sizes[2])),
        )
    if not isinstance(receiver, (Tensor, Transposed)) or receiver.axes is None:
        return None
    if len(sizes) != 3 or receiver.split is None:
        return None
    merged = sorted(ev.code(factor) for factor in factors(sizes[0]))
    if int_literal(sizes[0]) != -1 and merged != sorted(receiver.split):
        return None
    if not (int_literal(sizes[1]) == -1 or _length(sizes[1], values[1]) or _second(sizes[1])):
        return None
    order = heads.major(receiver.axes)
    if order is None:
        return None
    return Tensor(origin, sizes=tuple(Dim(origin) for _ in sizes), major=order)


def unknown_mask(ev: Interpreter, func: ast.AST) -> Mask | None:
    """``mask`` of ``mask.repeat_interleave(H, dim=0)`` where nothing is known of it.

    A name with "mask" in it, not reassigned from what the pass cannot read: a mask of
    unknown dtype and meaning, whose tiling for the heads alone is then checked.
    """
    if not isinstance(func, ast.Attribute):
        return None
    return named_unknown_mask(ev, func.value)


def named_unknown_mask(ev: Interpreter, node: ast.AST) -> Mask | None:
    """A name with "mask" in it that nothing else is known of: a mask of unknown meaning."""
    if not isinstance(node, ast.Name):
        return None
    name = node.id
    if "mask" not in name.lower() or state.lookup(ev, name) is UNKNOWN:
        return None
    return Mask("mask", Origin(node, f"`{name}`, a mask by its name"))


def mask_per_head(
    ev: Interpreter, mask: Mask, method: str | None, node: ast.Call, args: list[Arg]
) -> Mask | None:
    """A mask expanded per head, its axes moved, and merged: which way it was tiled.

    ``m[:, None].expand(B, H, L, S)`` (a head count by name second) has the axes ``BHLS``;
    ``transpose(0, 1)`` / ``permute`` move them; ``reshape(B * H, L, S)`` (or ``-1``) then
    merges the first two: ``BH`` is batch-major (as ``repeat_interleave``), ``HB``
    head-major (as ``repeat``).  None: not such a step.
    """
    if method is None or any(arg.keyword or arg.star for arg in args):
        return None
    sizes = [arg.value for arg in args]
    if (
        method == "expand"
        and len(sizes) == 4
        and mask.head_axes == ("1", "B", "L", "S")
        and head_counts.counts(sizes[0])
    ):
        return mask.but(head_axes=("H", "B", "L", "S"))  # m.unsqueeze(0).expand(H, ...)
    if method == "expand" and len(sizes) == 4 and head_counts.counts(sizes[1]):
        if head_counts.counts(sizes[0]) or mask.unranked_at is not None or mask.true_set:
            # (a rank the expand shows is read below; a triangle is the same for every
            # batch item, so no order of tiling can be wrong)
            return None
        return mask.but(head_axes=("B", "H", "L", "S"))
    if mask.head_axes is None:
        return None
    if ops.moves(method, "swap", "permute"):
        moved = heads.moved(mask.head_axes, method, [int_literal(size) for size in sizes])
        if moved is None or moved[2:] != ("L", "S"):
            return None  # the keys moved: the transpose below reads what that means
        return mask.but(head_axes=moved)  # only the batch and head axes moved
    if ops.moves(method, "reshape", "flatten"):
        origin = Origin(node, "")
        merged = len(sizes) == 3 and (int_literal(sizes[0]) == -1 or head_counts.counts(sizes[0]))
        if method == "flatten":
            # flatten(0, 1): the first two axes merged, the others kept
            merged = [int_literal(size) for size in sizes] == [0, 1]
        if merged and mask.head_axes == ("B", "H", "L", "S"):
            return mask.but(head_axes=None, interleaved=origin, ndim=3)
        if merged and mask.head_axes == ("H", "B", "L", "S"):
            return mask.but(head_axes=None, repeated=origin, ndim=3)
        return None  # the reshape below reads it (and forgets the head axes)
    return None  # eq, ne, bool, contiguous...: the axes stay, the other readings apply


def tiled_list(ev: Interpreter, node: ast.AST | None) -> Mask | None:
    """The mask of ``[mask] * num_heads`` (or ``num_heads * [mask]``): a head count by name."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Mult):
        return None
    for listed, count in ((node.left, node.right), (node.right, node.left)):
        if (
            isinstance(listed, (ast.List, ast.Tuple))
            and len(listed.elts) == 1
            and head_counts.counts(count)
            # [m] * (B * H): a mask shared by every item, copied B·H times, any order
            and len(factors(count)) == 1
        ):
            mask = ev.ev(listed.elts[0])
            if mask is None:
                mask = named_unknown_mask(ev, listed.elts[0])  # torch.cat([align_mask] * H)
            # a triangle is the same for every batch item: any order of copies is right
            return mask if isinstance(mask, Mask) and mask.true_set is None else None
    return None


def repeat(ev: Interpreter, mask: Mask, node: ast.Call) -> Mask:
    """``mask.repeat(H, 1, 1)`` of a 3-D mask: tiled head-major.

    A triangle is the same for every batch item: no order of its copies can be wrong.
    """
    if mask.true_set is not None:
        return mask
    literals = [int_literal(arg.value) for arg in ev.args(node)]
    if mask.ndim == 3 and len(literals) == 3 and literals[0] != 1 and literals[1:] == [1, 1]:
        return mask.but(repeated=Origin(node, ""))
    if tiles_heads(ev, node):
        return mask.but(repeated=Origin(node, ""))
    return mask


def tiles_heads(ev: Interpreter, node: ast.Call) -> bool:
    """``x.repeat(num_heads, 1, 1)``: three sizes, the first a head count by its name."""
    args = ev.args(node)
    if len(args) != 3 or any(arg.keyword or arg.star for arg in args):
        return False
    if [int_literal(arg.value) for arg in args[1:]] != [1, 1]:
        return False
    return last_name(args[0].value) is not None and head_counts.counts(args[0].value)


@operation("chunk")
def chunk_parts(ev: Interpreter, c: Call) -> Reading:
    """``x.chunk(n)`` of a tensor that is no mask: a tuple of n parts."""
    args, qualified, method, receiver, origin = c.args, c.qualified, c.method, c.receiver, c.origin
    if (
        method == "chunk"
        and qualified is None
        and args
        and not args[0].keyword
        and not isinstance(receiver, (Mask, Scores, Weights))
    ):
        # `q, k, v = self.to_qkv(x).chunk(3, dim=-1)`: as many parts as asked for
        count = int_literal(args[0].value)
        if count is not None and 1 <= count <= 16:
            part = receiver if isinstance(receiver, Tensor) and not receiver.axes else None
            return TupleValue(origin, (part,) * count)
        return None
    return NOT_MINE


@operation(
    "unbind",
    kinds=(
        Tensor,
        Transposed,
    ),
)
def unbound_parts(ev: Interpreter, c: Call) -> Reading:
    """``x.unbind(dim)`` of a tensor of known sizes: its slices along that axis."""
    args, method, receiver, origin = c.args, c.method, c.receiver, c.origin
    if method == "unbind" and isinstance(receiver, (Tensor, Transposed)) and receiver.sizes:
        return _unbound(receiver, receiver.sizes, args, origin)
    return NOT_MINE


@operation(
    "expand",
    *ops.names(lambda n: ops.moves(n, "swap", "permute", "reshape", "flatten")),
    kinds=(Mask,),
)
def mask_tiled_per_head(ev: Interpreter, c: Call) -> Reading:
    """A mask expanded per head, its axes moved or merged: which way it was tiled."""
    node, args, method, receiver = c.node, c.args, c.method, c.receiver
    if isinstance(receiver, Mask):
        per_head = mask_per_head(ev, receiver, method, node, args)
        if per_head is not None:
            return per_head
    return NOT_MINE


@operation("repeat")
def repeated_per_head(ev: Interpreter, c: Call) -> Reading:
    """``x.repeat(...)`` that tiles a tensor per head: the tiling is recorded."""
    node, method, receiver, origin = c.node, c.method, c.receiver, c.origin
    if method == "repeat" and not isinstance(receiver, Mask) and tiles_heads(ev, node):
        # what is tiled per head and goes to an attention mask is a [B, L, S] mask
        return Mask("mask", origin, repeated=origin)
    return NOT_MINE


@operation("repeat_interleave", "repeat")
def repeat_of_unknown(ev: Interpreter, c: Call) -> Reading:
    """``repeat`` or ``repeat_interleave`` of a value the pass does not know."""
    if c.method in ("repeat_interleave", "repeat") and c.receiver is None:
        # a mask the pass knows nothing of, tiled for the heads: its order still shows
        return dataclasses.replace(c, receiver=unknown_mask(ev, c.func))
    return NOT_MINE


@operation("repeat_interleave", kinds=(Mask,))
def mask_interleaved(ev: Interpreter, c: Call) -> Reading:
    """``mask.repeat_interleave(H, dim=0)``: the mask per head, batch-major."""
    node, args, values, method, receiver, origin = (
        c.node,
        c.args,
        c.values,
        c.method,
        c.receiver,
        c.origin,
    )
    if method == "repeat_interleave" and isinstance(receiver, Mask) and args:
        along, _ = ev.argument(node, values, 1, "dim")
        if (
            along is not None
            and int_literal(along.value) == 0
            and head_counts.counts(args[0].value)
            and receiver.true_set is None  # a triangle: every order is right
        ):
            return receiver.but(interleaved=origin)  # batch-major: b·H + h
    return NOT_MINE


@operation("repeat", kinds=(Mask,))
def mask_repeated(ev: Interpreter, c: Call) -> Reading:
    """``mask.repeat(H, 1, 1)``: the mask per head, head-major."""
    node, method, receiver = c.node, c.method, c.receiver
    if method == "repeat" and isinstance(receiver, Mask):
        return repeat(ev, receiver, node)
    return NOT_MINE


def _unbound(
    receiver: Tensor | Transposed, shape: tuple[Dim, ...], args: list[Arg], origin: Origin
) -> AnyValue | None:
    """``x.unbind(a)``: the parts along axis ``a`` (timm's ``qkv.unbind(0)`` of [3, B, H, N, d]).

    As many parts as the axis is long, where that is known; else a tensor with that axis moved
    first, which unpacks (or indexes) to the same parts.
    """
    axis = int_literal(args[0].value) if args else 0
    rank = len(shape)
    if axis is None or not -rank <= axis < rank:
        return None
    axis %= rank
    count = shape[axis].value
    dtype = receiver.dtype if isinstance(receiver, Tensor) else None
    wide = isinstance(receiver, Tensor) and receiver.wide
    rest = shape[:axis] + shape[axis + 1 :]
    if count is not None and count <= 16:
        return TupleValue(origin, (Tensor(origin, dtype, wide, sizes=rest),) * count)
    return Tensor(origin, dtype, wide, sizes=(shape[axis], *rest))
