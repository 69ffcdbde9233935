"""Calls of torch operations and attention APIs, read by what they are called.

The pass hands each call it meets here, with its arguments already evaluated, twice: first
:func:`before`, for what must be read before the checked code's own functions are looked for
(a scale kept through a method, positions), then, when the call is none of those functions,
:func:`operation`.  ``torch.f(x, …)`` and ``x.f(…)`` arrive as the same operation.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from attention.review import api_calls, apis, head_counts, heads, ops
from attention.review.ops import (
    arithmetic,
    dtypes,
    fills,
    head_axes,
    normalisation,
    positions,
    products,
    triangles,
)
from attention.review.ops.products import _einsum, _folds_the_keys
from attention.review.provenance import (
    Const,
    KeyCat,
    Mask,
    Meaning,
    Module,
    Origin,
    Scale,
    Scores,
    Triangle,
    Weights,
)
from attention.review.roles import _features_first, _keys_first
from attention.review.rules import am1_polarity, am2_fills, am8_heads
from attention.review.sinks import (
    ADDITIVE_CONVENTIONS,
    CONSTRUCTORS,
    CONVENTIONS,
    FLEX_MASK_MAKERS,
    INTEGER_DTYPES,
    MHA_FORWARD,
    MODULES,
    OWN_SDPA,
    PADDED_ONES,
    SCALING_METHODS,
    SDPA,
    SOFTMAX,
    TANH,
)
from attention.review.syntax import Arg, int_literal, last_name, string_literal
from attention.review.values import (
    AnyValue,
    Dim,
    Finfo,
    Positions,
    ScaledTensor,
    Tensor,
    Transposed,
    TupleValue,
    _wide,
    retype,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


class NotMine:
    """The answer of :func:`before` for a call it does not read."""


NOT_MINE: Final = NotMine()


@dataclass(frozen=True)
class Call:
    """A call as the pass met it: its node, arguments and their values, and its names.

    ``qualified``: the dotted name after the file's imports (``torch.nn.functional.softmax``);
    ``method``: the attribute called (``softmax`` of ``x.softmax``); ``function``: the tensor
    method a ``torch.f(x)`` stands for; ``receiver``: the value a method is called on;
    ``tensor``: the tensor acted on, ``x`` in both ``torch.f(x)`` and ``x.f()``.
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


def before(ev: Interpreter, c: Call) -> NotMine | AnyValue | None:
    """The operations read before the pass looks for a function of the checked code."""
    node, func, values, qualified = c.node, c.func, c.values, c.qualified
    method, receiver, origin = c.method, c.receiver, c.origin
    if qualified == "torch.arange":
        return Positions(origin, "cols", flat=True)
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
        ev.bind(func.value, receiver.but(empty_row=None, row_value=None))
    if isinstance(receiver, Positions) and method is not None:
        return positions.positions_method(ev, receiver, method, node, values)
    return NOT_MINE


def operation(ev: Interpreter, c: Call) -> AnyValue | None:
    """A torch operation, an attention API or a library helper: what its result is known to be."""
    node, func, args, values = c.node, c.func, c.args, c.values
    qualified, method, short, function = c.qualified, c.method, c.short, c.function
    receiver, tensor, origin = c.receiver, c.tensor, c.origin
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
    if method == "unbind" and isinstance(receiver, (Tensor, Transposed)) and receiver.sizes:
        return _unbound(receiver, receiver.sizes, args, origin)
    if qualified in SOFTMAX or (method == "softmax" and qualified is None):
        subject = receiver if method == "softmax" and qualified is None else None
        offset = 0 if subject is not None else 1
        if subject is None and values:
            subject = values[0]
        softmax_input = func.value if offset == 0 and isinstance(func, ast.Attribute) else None
        if softmax_input is None and args and args[0].keyword is None:
            softmax_input = args[0].value
        fills.fill_read_by_softmax(ev, softmax_input)
        return normalisation.softmax(ev, node, subject, offset)
    if qualified in TANH and values and isinstance(values[0], Scores):
        return normalisation.softcap(ev, values[0], node)  # torch.tanh(scores)
    if method in ("tanh", "tanh_") and qualified is None and isinstance(receiver, Scores):
        return normalisation.softcap(ev, receiver, node)  # scores.tanh()
    if qualified == SDPA:
        api_calls.sdpa(ev, node, values)
        return None
    if qualified in OWN_SDPA:
        allowed = apis.OWN_SDPA.argument("allowed")
        arg, value = ev.given(node, values, allowed)
        # a mask that is not Boolean raises MaskDtypeError there: no silent mistake to report
        if arg is not None and isinstance(value, Mask) and value.dtype in ("bool", None):
            am1_polarity.allowed_sink(ev, value, arg, f"{apis.OWN_SDPA.label}({allowed.keyword}=…)")
        return None
    if qualified == MHA_FORWARD:
        for keyword in (mask.keyword for mask in apis.MHA_FORWARD.masks):
            # by keyword only: its masks are read where named, not at their positions
            arg, value = ev.argument(node, values, None, keyword)
            if arg is not None and isinstance(value, Mask):
                am1_polarity.forbidden_sink(
                    ev, value, arg, f"{apis.MHA_FORWARD.label}({keyword}=…)"
                )
        return None
    if short == "Softmax" and qualified and qualified.startswith("torch.nn"):
        arg, _ = ev.argument(node, values, 0, "dim")
        dim = int_literal(arg.value) if arg is not None else None
        return Module("softmax", False, origin, dim=dim, implicit=arg is None)
    if short in MODULES and qualified and qualified.startswith("torch.nn"):
        return api_calls.construct(ev, MODULES[short], node, values)
    if short == "ModuleList" and qualified and qualified.startswith("torch.nn") and args:
        return api_calls.layers_of(ev, args[0].value, origin)
    if qualified == "torch.nn.Embedding":
        return Module("embedding", False, origin)
    if qualified in ("torch.nn.Linear", "torch.nn.LazyLinear"):
        position = 1 if short == "Linear" else 0
        arg, _ = ev.argument(node, values, position, "out_features")
        return Module("linear", False, origin, out=int_literal(arg.value) if arg else None)
    if qualified in ("torch.nn.Conv1d", "torch.nn.Conv2d"):
        arg, _ = ev.argument(node, values, 1, "out_channels")
        return Module("conv", False, origin, out=int_literal(arg.value) if arg else None)
    if qualified == "torch.nn.Sequential":
        return Module("sequential", False, origin, parts=tuple(values))
    if short in SHAPE_KEEPING and qualified and qualified.startswith("torch.nn"):
        return Module("same", False, origin)
    if method in ("masked_fill", "masked_fill_") or function == "masked_fill":
        filled = args
        if function == "masked_fill":
            receiver, values, filled = tensor, values[1:], args[1:]
        return fills.masked_fill(ev, node, receiver, filled, values, func)
    if short in ("triu", "tril") or method in ("triu", "tril", "triu_", "tril_"):
        return triangles.triangle(ev, node, qualified, receiver, values)
    if qualified in ("torch.triu_indices", "torch.tril_indices"):
        return triangles.triangle_indices(ev, node, qualified.endswith("tril_indices"))
    if ops.widens(method) and not args and not isinstance(receiver, (Mask, Scores)):
        # float32 (or float64) by construction: a fill of -1e9 fits there
        return Tensor(origin, "float", wide=True)
    if isinstance(receiver, Tensor) and receiver.holds is not None:
        narrowed = fills.narrowing(ev, node, method, args)
        if narrowed is not None:
            am2_fills.overflow_check(ev, receiver.holds, node, narrowed)
    if ops.named_dtype(method) == "float" and isinstance(receiver, Scores):
        return dataclasses.replace(receiver, wide=ops.widens(method))
    if ops.widens(method) and isinstance(receiver, Mask) and not args:
        # float32 (or float64) by construction: a penalty of -1e9 times it fits
        retyped = retype(receiver, "float", origin)
        return (retyped if isinstance(retyped, Mask) else receiver).but(wide=True)
    given = ops.gives(method)
    if given == "bool" and isinstance(receiver, Tensor) and receiver.zero_one and not args:
        return dataclasses.replace(receiver, origin=origin, dtype="bool", wide=False)
    if given == "int":
        return retype(receiver, "int", origin) or Tensor(origin, "int")
    if given is not None:
        # float(), half(), bool(), type_as(scores): the mask in its new dtype
        return retype(receiver, given, origin)
    if ops.dtype_argument(method) and isinstance(receiver, Mask):
        return dtypes.convert(ev, receiver, node)
    if ops.dtype_argument(method) and "int" in (
        dtypes.created_dtype(ev, node, like=True),
        _integer_dtype(args[0].value) if args and args[0].keyword is None else None,
    ):
        return Tensor(origin, "int")
    if (
        ops.dtype_argument(method)
        and not isinstance(receiver, (Mask, Scores))
        and any(_wide(ev.code(arg.value)) for arg in args if arg.keyword in (None, "dtype"))
    ):
        # float32 (or float64) by construction: a fill of -1e9 fits there
        return Tensor(origin, "float", wide=True)
    if method == "logical_not" or qualified == "torch.logical_not":
        subject = receiver if method == "logical_not" else (values[0] if values else None)
        return arithmetic.invert(ev, subject, node) if isinstance(subject, Mask) else None
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
    if isinstance(receiver, Mask):
        per_head = head_axes.mask_per_head(ev, receiver, method, node, args)
        if per_head is not None:
            return per_head
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
    if ops.keeps(method) and isinstance(receiver, (Mask, Scores)):
        return receiver
    if method == "repeat" and not isinstance(receiver, Mask) and head_axes.tiles_heads(ev, node):
        # what is tiled per head and goes to an attention mask is a [B, L, S] mask
        return Mask("mask", origin, repeated=origin)
    if isinstance(receiver, Tensor) and receiver.dtype is not None and ops.keeps_dtype(method):
        # the dtype survives a change of shape, a copy or an in-place fill
        sizes = receiver.sizes if ops.keeps(method) else None
        return Tensor(origin, receiver.dtype, receiver.wide, sizes=sizes)
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
    stable = normalisation.hand_written_softmax(ev, node, method, qualified, receiver, args, values)
    if stable is not None:
        return stable
    if method in ("nan_to_num", "nan_to_num_") or function == "nan_to_num":
        guarded = fills.nan_guard(ev, tensor if function == "nan_to_num" else receiver)
        if guarded is not None:
            return guarded
    if (method == "topk" or function == "topk") and isinstance(tensor, Scores):
        normalisation.top_k(ev, tensor)
    if ops.moves(method, "reshape") and isinstance(receiver, Tensor) and receiver.features:
        am8_heads.head_split_check(ev, receiver.features, node, args, values)
    if ops.moves(method, "reshape"):
        split = head_axes.heads_view(ev, receiver, node, args, values)
        if split is not None:
            return split
    if (
        method in ("contiguous", "clone", "to")
        and isinstance(receiver, Tensor)
        and (receiver.axes or receiver.major)
    ):
        return dataclasses.replace(receiver, origin=origin)
    if ops.moves(method, "reshape") and isinstance(receiver, Mask):
        return receiver.but(
            key_padding=False,
            ndim=len(args) or None,
            unranked_at=None,
            empty_row=None,
            head_axes=None,
        )
    if ops.moves(method, "reshape") and isinstance(receiver, Scores):
        # a new shape: as many axes as sizes given (a single argument may be a whole shape)
        ndim = len(args) if len(args) >= 2 else None
        merged = receiver.merged
        if receiver.key_axes == 1 and _folds_the_keys(receiver.ndim, [a.value for a in args]):
            merged = origin
        return dataclasses.replace(receiver, ndim=ndim, merged=merged)
    if method == "flatten" and isinstance(receiver, Scores):
        return normalisation.flattened(ev, receiver, node, values, origin)
    if method == "contiguous" and isinstance(receiver, (Scores, Transposed)):
        return receiver
    if method in ("repeat_interleave", "repeat") and receiver is None:
        # a mask the pass knows nothing of, tiled for the heads: its order still shows
        receiver = head_axes.unknown_mask(ev, func)
    if method == "repeat_interleave" and isinstance(receiver, Mask) and args:
        along, _ = ev.argument(node, values, 1, "dim")
        if (
            along is not None
            and int_literal(along.value) == 0
            and head_counts.counts(args[0].value)
            and receiver.true_set is None  # a triangle: every order is right
        ):
            return receiver.but(interleaved=origin)  # batch-major: b·H + h
    if method == "repeat" and isinstance(receiver, Mask):
        return head_axes.repeat(ev, receiver, node)
    if (
        method in ("eq", "ne")
        and len(values) == 1
        and isinstance(receiver, Mask)
        and receiver.kind == "mask"
        and isinstance(values[0], Const)
        and values[0].value in (0.0, 1.0)
    ):
        flip = (method == "eq") == (values[0].value == 0.0)
        if flip:
            return receiver.flipped(origin).but(dtype="bool")
        return receiver.but(dtype="bool", origin=origin, hf=False)
    if method in ("eq", "ne") and args:
        pad = last_name(args[0].value)
        if pad is not None and "pad" in pad.lower():
            polarity: Meaning = "forbidden" if method == "eq" else "allowed"
            return Mask("mask", origin, "bool", polarity, key_padding=True, ndim=2)
        return None
    if (
        last_name(func) == "rearrange"
        and values
        and isinstance(values[0], ScaledTensor)
        and not args[0].keyword
    ):
        # einops' rearrange of a scaled query (its heads split off, or not): still scaled
        return dataclasses.replace(values[0], origin=origin)
    if isinstance(receiver, ScaledTensor) and ops.keeps_scale(method) and not ops.reorders(method):
        # a scaled query, its heads split off (or not): still scaled
        return dataclasses.replace(receiver, origin=origin)
    if method in SCALING_METHODS and args:
        if isinstance(receiver, Scores):
            divide = method.startswith("div")
            return products.scaled(ev, receiver, values[0], args[0].value, divide=divide)
        if not isinstance(receiver, Mask):
            return ScaledTensor(origin)
    if method == "size" and len(args) == 1 and isinstance(func, ast.Attribute):
        return dtypes.size_of(ev, func.value, receiver, args[0].value, node)
    if ops.moves(method, "swap") and isinstance(receiver, Scores):
        # the scores' other axes swapped (heads and queries): the keys stay last
        axes = [int_literal(arg.value) for arg in args]
        rank = receiver.ndim
        if rank is None or len(axes) != 2 or any(a is None or not -rank <= a < rank for a in axes):
            return None
        if rank - 1 in {a % rank for a in axes if a is not None}:
            return None
        return dataclasses.replace(receiver, origin=origin, major=None)
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
    if method in ("mm", "matmul", "bmm") and qualified is None and values:
        # q.matmul(k.transpose(-2, -1)), q.mm(k.t()): the scores as with @
        if isinstance(values[0], Transposed) and not (
            isinstance(func, ast.Attribute) and _keys_first(func.value, args[0].value)
        ):
            rank = len(values[0].sizes) if values[0].sizes is not None else None
            return products.query_key(
                ev, origin, receiver, values[0], 2 if method == "mm" else rank
            )
        return None
    if short in ("matmul", "bmm") and qualified and qualified.startswith("torch"):
        if (
            len(values) >= 2
            and isinstance(values[0], Transposed)
            and not isinstance(values[1], Transposed)
            and _features_first(args[0].value, args[1].value)
        ):
            # torch.bmm(x_q, x_k) of x_q = conv(x).permute(0, 2, 1): [B, N, N] scores
            return Scores(origin, scaled=values[0].scaled, ndim=3 if short == "bmm" else None)
        if (
            len(values) >= 2
            and isinstance(values[1], Transposed)
            and not _keys_first(args[0].value, args[1].value)
        ):
            keys = values[1]
            rank = len(keys.sizes) if keys.sizes is not None else None
            # bmm: [B, L, S] exactly
            return products.query_key(ev, origin, values[0], keys, 3 if short == "bmm" else rank)
        return None
    if qualified == "torch.einsum":
        return _einsum(args, values, origin)
    if (qualified == "torch.baddbmm" or (method == "baddbmm" and qualified is None)) and args:
        return products.baddbmm(ev, node, values, method=qualified is None)
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
    if qualified == "torch.where" and len(values) == 3:
        return fills.where(ev, node, values)
    if qualified == "torch.finfo":
        dtype = ev.code(args[0].value) if args else ""
        return Finfo(origin, absolute=dtype.endswith(("float32", "float64", "float", "double")))
    if qualified == "torch.full" and len(values) >= 2 and isinstance(values[1], Const):
        if values[1].finfo:
            return Mask("additive", origin, dtype="float", finfo_terms=1)
        full = fills.filled(ev, node, values[1], silent=False)
        return dataclasses.replace(full, sizes=dtypes.sizes(ev, node, values, shape_only=True))
    if qualified == "torch.full_like" and len(values) >= 2 and isinstance(values[1], Const):
        # x's dtype unless one is given; a value that dtype cannot hold raises, so it holds c
        sizes = values[0].sizes if isinstance(values[0], Tensor) else None
        return Tensor(
            origin, dtypes.created_dtype(ev, node, like=True), holds=values[1], sizes=sizes
        )
    if qualified in PADDED_ONES and values and _made_of_ones(values[0]):
        position, keyword = PADDED_ONES[qualified]
        padding, _ = ev.argument(node, values, position, keyword)
        fill = None
        if keyword == "pad":
            fill, _ = ev.argument(node, values, 3, "value")
        if padding is not None and int_literal(padding.value) != 0 and fill is None:
            # ones where the input was, zeros in the padding: 1 = a real position
            return Mask("mask", Origin(node, "ones padded with zeros"), "float", "allowed")
    if qualified == "torch.tensor" and values and isinstance(values[0], Const):
        return fills.filled(ev, node, values[0], silent=True)
    if qualified == "torch.tensor" and args and _int_literals(args[0].value):
        # integer data (the tokenizer's 1/0 attention_mask written out): int64 unless a
        # dtype is given
        dtype = dtypes.created_dtype(ev, node, like=True) or "int"
        return Tensor(origin, dtype)
    if short in (*CONSTRUCTORS, "randn", "rand") and qualified and qualified.startswith("torch"):
        like = short.endswith("_like")
        sizes = None if like else dtypes.sizes(ev, node, values)
        if like and values and isinstance(values[0], Tensor):
            sizes = values[0].sizes
        zero_one = short in ("zeros", "ones", "zeros_like", "ones_like")
        return Tensor(
            origin, dtypes.created_dtype(ev, node, like=like), sizes=sizes, zero_one=zero_one
        )
    if short == "sqrt" and qualified in ("math.sqrt", "numpy.sqrt", "torch.sqrt"):
        argument = args[0].value if args else None
        width = None if argument is None else products.width_of(ev, argument, node)
        if argument is not None and isinstance(values[0], Dim):
            width = ev.code(argument) if values[0].role == "width" else None
        # sqrt(1 / (3 * d)) is already the reciprocal: a factor, not a divisor
        reciprocal = (
            isinstance(argument, ast.BinOp)
            and isinstance(argument.op, ast.Div)
            and isinstance(argument.left, ast.Constant)
            and argument.left.value == 1
        )
        if values and (
            isinstance(values[0], Scale)
            or (argument is not None and "scale" in ev.code(argument).lower())
        ):
            return None  # the root of a scale (a half of it on q, a half on k)
        return Scale(origin, width, inverted=not reciprocal)
    if qualified == "builtins.float" or (isinstance(func, ast.Name) and func.id == "float"):
        text = string_literal(args[0].value) if args else None
        if text is not None:
            text = text.strip().lower()
            if text in ("-inf", "inf", "+inf", "-infinity", "infinity"):
                return Const(float(text), Origin(node, "infinity"))
            try:
                return Const(float(text), Origin(node, "a constant"))
            except ValueError:
                return None
        if values and isinstance(values[0], Const):
            return values[0]
        return None
    if (short is not None and short.endswith("generate_square_subsequent_mask")) or (
        method == "generate_square_subsequent_mask"
    ):
        return Mask(
            "additive",
            Origin(node, "0 on and below the diagonal, -inf above"),
            dtype="float",
            true_set=Triangle(lower=False, diagonal=1),
        )
    if short in CONVENTIONS and qualified and qualified.startswith("attention"):
        meaning, key_padding = CONVENTIONS[short]
        return Mask(
            "mask",
            Origin(node, f"attention.{short} returns {meaning}"),
            dtype="bool",
            meaning=meaning,  # type: ignore[arg-type]
            key_padding=key_padding,
            ndim=2 if key_padding else None,
        )
    if short == "allowed_to_hf_attention_mask" and qualified and qualified.startswith("attention"):
        return Mask("mask", origin, "int", "allowed", key_padding=True, ndim=2, hf=True)
    if short in ADDITIVE_CONVENTIONS and qualified and qualified.startswith("attention"):
        return Mask("additive", origin, dtype="float")
    if short == "attention_scores" and qualified and qualified.startswith("attention"):
        return Scores(origin, scaled=True)
    if short in FLEX_MASK_MAKERS and qualified and ("flex_attention" in qualified):
        if args:
            api_calls.mask_mod(ev, args[0].value)
        return None
    if isinstance(receiver, Module) and receiver.kind == "embedding":
        return api_calls.embedded(ev, node)
    return None


SHAPE_KEEPING = (
    "ReLU",
    "LeakyReLU",
    "GELU",
    "SiLU",
    "Tanh",
    "Sigmoid",
    "Dropout",
    "LayerNorm",
    "Identity",
    "ELU",
)
"""Layers whose output has their input's shape."""


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


def _made_of_ones(value: object) -> bool:
    """A tensor made by ``torch.ones`` / ``torch.ones_like`` and not changed since."""
    if not isinstance(value, Tensor) or not value.zero_one:
        return False
    made = value.origin.node
    return isinstance(made, ast.Call) and last_name(made.func) in ("ones", "ones_like")


def _integer_dtype(node: ast.AST) -> str | None:
    """``"int"`` for ``torch.uint8`` / ``torch.long`` / ``torch.int64`` written out, else None."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
        and node.attr in INTEGER_DTYPES
    ):
        return "int"
    return None


def _int_literals(node: ast.AST) -> bool:
    """A list (or tuple) of integer literals, nested to any depth, and nothing else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_int_literals(element) for element in node.elts)
    return int_literal(node) is not None
