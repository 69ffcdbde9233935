"""Products: the query–key product that makes scores, and the scale it is given."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attention.review import head_counts, heads, ops
from attention.review.events import ScoresScaled, emit
from attention.review.ops import fills
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import (
    Const,
    Mask,
    Origin,
    Scale,
    Scores,
    scale_from_name,
)
from attention.review.roles import (
    _features_first,
    _head_size,
    _keys_first,
    _role,
    _unwrapped,
)
from attention.review.sinks import SCALING_METHODS
from attention.review.syntax import (
    Arg,
    factors,
    has_division,
    int_literal,
    last_name,
    names_in,
    string_literal,
)
from attention.review.values import (
    AnyValue,
    Dim,
    ScaledTensor,
    Tensor,
    Transposed,
)
from attention.review.widths import model_width

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def _parted(side: object) -> bool:
    """Whether a query or key shows its heads split off (a view with a head count)."""
    return isinstance(side, (Tensor, Transposed)) and (side.axes is not None or bool(side.major))


def _size_nodes(args: Sequence[Arg]) -> list[ast.AST]:
    """The sizes a view names: its arguments, and the elements of a tuple or list among them."""
    found: list[ast.AST] = []
    for arg in args:
        if isinstance(arg.value, (ast.Tuple, ast.List)):
            found.extend(arg.value.elts)
        else:
            found.append(arg.value)
    return found


def _folds_the_keys(ndim: int | None, sizes: list[ast.expr]) -> bool:
    """``view`` / ``reshape`` that keeps every axis but the last two and multiplies those.

    ``s.reshape(B, H, L * S)`` of 4-D scores folds the keys in with the queries;
    ``s.reshape(B * H, L, S)`` keeps them alone.  A ``-1``, or a size that is itself a product
    before the last (``bh``, ``B * H``), leaves unsaid which axes the last one holds: not read.
    """
    if ndim is None or len(sizes) != ndim - 1 or len(sizes) < 2:
        return False
    *kept, last = sizes
    return (
        isinstance(last, ast.BinOp)
        and isinstance(last.op, ast.Mult)
        and not any(isinstance(size, ast.BinOp) or int_literal(size) == -1 for size in kept)
    )


def _einsum(args: list[Arg], values: list[AnyValue | None], origin: Origin) -> AnyValue | None:
    equation = string_literal(args[0].value) if len(args) == 3 else None
    if equation is None:
        return None
    equation = equation.replace(" ", "")
    if "->" not in equation:
        return None
    inputs, output = equation.split("->")
    parts = inputs.split(",")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    contracted = parts[0][-1]
    letters = output.replace(".", "")
    keys = len(letters) - len(letters.rstrip("".join(set(parts[1]) - set(parts[0]))))
    if contracted not in parts[1] or contracted in output:
        return _keys_named(args, _features_inside(parts, letters, values, origin))
    if not keys:
        return _keys_named(args, _keys_inside(parts, letters, contracted, values, origin))
    # the query's features against the key's, last in both ("bhid,bhjd->bhij"), or a scaled
    # query against the two (or more) axes of a key feature map (DETR's "bqnc,bnchw->bqnhw"):
    # weights times values ("bqj,bjhw->bqhw") have that shape too, and no scale
    query = args[1].value
    scaled = _scaled(values[0]) or (
        isinstance(query, ast.BinOp) and isinstance(query.op, (ast.Mult, ast.Div))
    )
    feature_map = keys >= 2 and parts[1].endswith(letters[-keys:]) and scaled
    if parts[1][-1] == contracted or feature_map:
        return Scores(origin, scaled=_scaled(values[1]), ndim=len(letters), key_axes=keys)
    return None


def _keys_named(args: list[Arg], scores: tuple[Scores, int] | None) -> Scores | None:
    """Scores whose key axis is not last, once the operands' names say which holds the keys.

    ``scores``: read with the second operand as the keys, and the axis of the first operand's
    positions.  An einsum's order of operands says nothing (torchaudio's HDemucs writes
    ``einsum("bhct,bhcs->bhts", keys, queries)``), so the names decide which of the two
    position axes is the keys'; with no such names, neither is known.
    """
    if scores is None:
        return None
    read, other = scores
    first, second = (_role(last_name(arg.value)) for arg in args[1:3])
    if first == "query" or second == "key":
        return read
    if first == "key" or second == "query":
        return dataclasses.replace(read, key_at=other)
    return None


def _features_inside(
    parts: list[str], letters: str, values: list[AnyValue | None], origin: Origin
) -> tuple[Scores, int] | None:
    """``einsum("bct,bcs->bts", q, k)``: features on one axis before the positions, summed.

    A convolution's ``[B, C, T]`` query and key; the keys' axis is where the output puts it.

    Weights times values (``"bts,bcs->bct"``) sum an axis that is not at one place in both.
    """
    summed = [x for x in parts[0] if x in parts[1] and x not in letters]
    if len(summed) != 1 or "." in "".join(parts) or len(parts[0]) != len(parts[1]):
        return None
    feature = summed[0]
    if parts[0].index(feature) != parts[1].index(feature):
        return None
    own = [x for x in letters if x in parts[1] and x not in parts[0]]
    query = [x for x in letters if x in parts[0] and x not in parts[1]]
    if len(own) != 1 or len(query) != 1:
        return None
    at = letters.index(own[0]) - len(letters)
    other = letters.index(query[0]) - len(letters)
    return Scores(origin, scaled=_scaled(values[1]), ndim=len(letters), key_at=at), other


def _keys_inside(
    parts: list[str], letters: str, contracted: str, values: list[AnyValue | None], origin: Origin
) -> tuple[Scores, int] | None:
    """``einsum("bhqd,bhkd->bhkq", q, k)``: the scores with their one key axis before the end.

    The key's own letter (in the key, not in the query) is one axis of the output, the
    query's own letter another, and the features, last in both, are summed.
    """
    own = [letter for letter in letters if letter in parts[1] and letter not in parts[0]]
    query = [letter for letter in letters if letter in parts[0] and letter not in parts[1]]
    if len(own) != 1 or len(query) != 1 or parts[1][-1] != contracted or "." in "".join(parts):
        return None
    at = letters.index(own[0]) - len(letters)
    other = letters.index(query[0]) - len(letters)
    return Scores(origin, scaled=_scaled(values[1]), ndim=len(letters), key_at=at), other


def _major(side: object) -> heads.Major | None:
    """The row order of a query or key whose heads were merged into its first axis."""
    if isinstance(side, (Tensor, Transposed)):
        return side.major
    return None


def _scaled(value: object) -> bool:
    """A tensor multiplied or divided by something: a query or key scaled before ``q @ kᵀ``."""
    return isinstance(value, ScaledTensor) or (isinstance(value, Transposed) and value.scaled)


def splits_heads(ev: Interpreter) -> bool:
    """Whether the function being read splits a tensor into heads (a view with a head count)."""
    function = ev.functions[-1] if ev.functions else None
    if function is None:
        return False
    key = id(function)
    if key not in ev.head_splits:
        ev.head_splits[key] = any(
            isinstance(node, ast.Call)
            and (
                (
                    isinstance(node.func, ast.Attribute)
                    and ops.moves(node.func.attr, "reshape", "unflatten")
                    and any(head_counts.counts(size) for size in _size_nodes(ev.args(node)))
                )
                or head_counts.einops_split(node)
            )
            for node in ast.walk(function)
        )
    return ev.head_splits[key]


def baddbmm(
    ev: Interpreter, node: ast.Call, values: list[AnyValue | None], *, method: bool
) -> Scores | None:
    """``torch.baddbmm(bias, q, kᵀ, beta=0.0, alpha=scale)``: [B·H, L, S] scores times alpha.

    BLOOM's and GPT-NeoX's form: the keys transposed, or named for keys (laid out
    ``[B·H, d, S]`` already); ``alpha`` is the scale (1 where it is not given).
    """
    shift = 0 if method else 1  # x.baddbmm(q, k) has no input argument
    query_arg, query = ev.argument(node, values, shift, "batch1")
    key_arg, key = ev.argument(node, values, shift + 1, "batch2")
    if query_arg is None or key_arg is None:
        return None
    if not isinstance(key, Transposed) and _role(last_name(key_arg.value)) != "key":
        return None
    origin = Origin(node, "")
    scores = Scores(origin, scaled=_scaled(query) or _scaled(key), ndim=3)
    alpha_arg, alpha = ev.argument(node, values, None, "alpha")
    if alpha_arg is None:
        return scores
    if isinstance(alpha, Const) and alpha.value == 1.0:
        return scores
    return scaled(ev, scores, alpha, alpha_arg.value, divide=False)


def query_key(
    ev: Interpreter, origin: Origin, query: AnyValue | None, key: Transposed, ndim: int | None
) -> Scores:
    """``q @ kᵀ``: the scores, and the checks of a scale either side carries."""
    orders = {_major(side) for side in (query, key)} - {None}
    scores = Scores(
        origin,
        # `q = q * dim ** -0.5` of a query the pass does not know is that Scale
        scaled=_scaled(query) or key.scaled or isinstance(query, Scale),
        ndim=ndim,
        major=next(iter(orders)) if len(orders) == 1 else None,
    )
    # a scale from the width is wrong where the heads were split (on either side): a
    # single head's width is its head size
    parted = any(map(_parted, (query, key))) or splits_heads(ev)
    for side in (query, key):
        carried = side.scale if isinstance(side, (ScaledTensor, Transposed)) else None
        if isinstance(side, Scale) and side.width is not None:
            # `q = q * self.scale` of a query the pass does not know: the scale it carries
            carried = (side, side.origin.node, False)
        if carried is not None:
            scale, at, divide = carried
            scores = scaled(ev, scores, scale, at, divide=divide, parted=parted)
    return scores


def scaled(
    ev: Interpreter,
    scores: Scores,
    scale: AnyValue | None,
    node: ast.AST,
    *,
    divide: bool,
    parted: bool | None = None,
) -> Scores:
    """Scores times (or over) a scale; a finding about the scale waits for a softmax.

    ``parted``: for a scale the query carried, whether its heads were split after it.
    """
    before = len(ev.hits)
    emit(ev, ScoresScaled(scale, node, divide=divide, parted=parted, scores=scores))
    found = tuple(ev.hits[before:])
    del ev.hits[before:]
    by = scores.scaled_by
    if isinstance(scale, Scale) and isinstance(scale.origin.node, (ast.Call, ast.BinOp)):
        # a root or a power written out, in the right direction: the scores are over √d now
        by = scale if scale.inverted == divide else by
    return dataclasses.replace(
        scores, scaled=True, pending=scores.pending + found, fixable=None, scaled_by=by
    )


def width_of(ev: Interpreter, node: ast.AST, at: ast.AST) -> str | None:
    """The model width a scale is taken of, by the names in it (None: a head size, unknown).

    A name assigned once in the function counts as what it was given (``dk =
    torch.tensor(self.d_model)``); a division there makes a head size, and a head size
    times a head count (vit-pytorch's ``inner_dim = dim_head * heads``) is the width.
    """
    written = _unwrapped(fills.assigned_once(ev, node, at)) if isinstance(node, ast.expr) else node
    if has_division(written):
        return None
    parts = factors(written)
    if len(parts) >= 2 and any(map(head_counts.counts, parts)) and any(map(_head_size, parts)):
        return ev.code(node)
    return scale_from_name(names_in(written)) or model_width(ev, written)


@operation(*SCALING_METHODS)
def scaled_by_method(ev: Interpreter, c: Call) -> Reading:
    """``scores.mul(s)`` / ``div(s)``: the scores scaled."""
    args, values, method, receiver, origin = c.args, c.values, c.method, c.receiver, c.origin
    if method in SCALING_METHODS and args:
        if isinstance(receiver, Scores):
            divide = method.startswith("div")
            return scaled(ev, receiver, values[0], args[0].value, divide=divide)
        if not isinstance(receiver, Mask):
            return ScaledTensor(origin)
    return NOT_MINE


@operation("mm", "matmul", "bmm")
def matmul_method(ev: Interpreter, c: Call) -> Reading:
    """``q.matmul(k.transpose(-2, -1))``, ``q.mm(k.t())``: the scores, as with ``@``."""
    func, args, values, qualified, method, receiver, origin = (
        c.func,
        c.args,
        c.values,
        c.qualified,
        c.method,
        c.receiver,
        c.origin,
    )
    if method in ("mm", "matmul", "bmm") and qualified is None and values:
        # q.matmul(k.transpose(-2, -1)), q.mm(k.t()): the scores as with @
        if isinstance(values[0], Transposed) and not (
            isinstance(func, ast.Attribute) and _keys_first(func.value, args[0].value)
        ):
            rank = len(values[0].sizes) if values[0].sizes is not None else None
            return query_key(ev, origin, receiver, values[0], 2 if method == "mm" else rank)
        return None
    return NOT_MINE


@operation("matmul", "bmm")
def matmul_function(ev: Interpreter, c: Call) -> Reading:
    """``torch.matmul(q, kᵀ)`` / ``torch.bmm``: the scores."""
    args, values, qualified, short, origin = c.args, c.values, c.qualified, c.short, c.origin
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
            return query_key(ev, origin, values[0], keys, 3 if short == "bmm" else rank)
        return None
    return NOT_MINE


@operation("einsum")
def einsum_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.einsum('...qd,...kd->...qk', q, k)``: the scores."""
    args, values, qualified, origin = c.args, c.values, c.qualified, c.origin
    if qualified == "torch.einsum":
        return _einsum(args, values, origin)
    return NOT_MINE


@operation("baddbmm")
def baddbmm_call(ev: Interpreter, c: Call) -> Reading:
    """``torch.baddbmm(bias, q, kᵀ, alpha=scale)``: scores times alpha."""
    node, args, values, qualified, method = c.node, c.args, c.values, c.qualified, c.method
    if (qualified == "torch.baddbmm" or (method == "baddbmm" and qualified is None)) and args:
        return baddbmm(ev, node, values, method=qualified is None)
    return NOT_MINE


@operation("sqrt")
def square_root(ev: Interpreter, c: Call) -> Reading:
    """``math.sqrt(d)``: a scale, and the width it is the root of."""
    node, args, values, qualified, short, origin = (
        c.node,
        c.args,
        c.values,
        c.qualified,
        c.short,
        c.origin,
    )
    if short == "sqrt" and qualified in ("math.sqrt", "numpy.sqrt", "torch.sqrt"):
        argument = args[0].value if args else None
        width = None if argument is None else width_of(ev, argument, node)
        if argument is not None and isinstance(values[0], Dim):
            # a size read from a tensor says what it is, whatever its name
            shown = values[0].role == "width" or model_width(ev, argument) is not None
            width = ev.code(argument) if shown else None
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
    return NOT_MINE
