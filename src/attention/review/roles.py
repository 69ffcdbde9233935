"""Which sequence a name, a size or an axis stands for: the query's, the keys', the batch's.

The checker reads a size by what it counts (``q_len``, ``k.size(-2)``, ``bsz``) and a layout by
which tensor's axis comes first; these readers say so from names and the code's shape, and
know no torch function.
"""

from __future__ import annotations

import ast
import re

from attention.review.provenance import (
    Const,
    Origin,
    names_a_head_size,
)
from attention.review.syntax import (
    FunctionNode,
    int_literal,
    last_name,
    names_in,
    string_literal,
)
from attention.review.values import (
    BOOL_PARAM,
    PARAM,
    AnyValue,
    Dim,
)


def _parameters(node: FunctionNode) -> dict[str, AnyValue]:
    arguments = node.args
    found: dict[str, AnyValue] = {}
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        text = "" if arg.annotation is None else " ".join(names_in(arg.annotation))
        boolean = "BoolTensor" in text or text.startswith("Bool")
        found[arg.arg] = BOOL_PARAM if boolean else PARAM
        if LENGTH_NAMES.fullmatch(arg.arg):
            # a length named for its sequence: `q_len`, `kv_len`
            found[arg.arg] = Dim(Origin(arg, f"`{arg.arg}` by its name"), _role(arg.arg))
    return found


LENGTH_NAMES = re.compile(
    r"(q|query|tgt|k|kv|key|src)_?(seq_?)?len(gth)?|seq_?len_?(q|kv|k)|seqlen_?(q|kv|k)"
    r"|len_?(q|k|v|kv|query|key)"
)
"""Parameter names that count a query or key sequence."""


_QUERY = re.compile(r"_?(q|query|queries|xq|x_q|q_states|query_states|query_layer|q_new)")


_KEY = re.compile(
    r"_?(k|key|keys|xk|x_k|k_cache|key_cache|kv|k_states|key_states|key_layer|past_k|keys_cached)"
)


_BATCH = re.compile(r"_*(b|bs|bsz|batch|batch_?size|n_?batch(es)?|num_batch(es)?)", re.I)


_LENGTH = re.compile(r"_*(seq_?len(gth)?|length|len|num_tokens|n_?tokens|n|t|l)", re.I)


def _length(node: ast.AST, value: object) -> bool:
    """A sequence length: by its name (``seq_len``, ``n`` as einops writes it) or its tensor."""
    if isinstance(value, Dim) and value.role is not None:
        return True
    name = last_name(node)
    return name is not None and (_LENGTH.fullmatch(name) is not None or _role(name) is not None)


def _tokenizer_ids(node: ast.AST) -> bool:
    """``batch["input_ids"]``, ``encoded.input_ids``: a tokenizer's ids, ``[B, T]``."""
    if isinstance(node, ast.Subscript):
        return string_literal(node.slice) == "input_ids"
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "input_ids"
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    )


def _ids_layout(function: ast.AST, name: str) -> set[str]:
    """What a function's reads of ``name``'s sizes say its first axis is: batch or sequence.

    ``b, t = ids.shape`` / ``ids.size()``, ``x = ids.size(0)`` / ``ids.shape[0]``,
    ``x = ids.size(1)`` / ``ids.shape[1]``, by the names the sizes are given.
    """
    said: set[str] = set()

    def axis_named(position: int, target: ast.AST) -> None:
        label = last_name(target)
        if label is None:
            return
        batch = _BATCH.fullmatch(label) is not None
        length = _LENGTH.fullmatch(label) is not None or _role(label) is not None
        if batch == length:
            return
        if position == 0:
            said.add("batch" if batch else "sequence")
        elif position == 1:
            said.add("sequence" if batch else "batch")

    def read_of(value: ast.AST) -> int | None:
        """Which axis of ``name`` a size read picks (-1: the whole shape)."""
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            return -1 if last_name(value.value) == name else None
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute):
            shape = value.value
            if shape.attr == "shape" and last_name(shape.value) == name:
                return int_literal(value.slice)
            return None
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "size"
            and last_name(value.func.value) == name
        ):
            if not value.args:
                return -1
            return int_literal(value.args[0]) if len(value.args) == 1 else None
        return None

    for statement in ast.walk(function):
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                return set()  # `ids = ids.t()`: which ids the sizes were read of is unknown
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, axis = statement.targets[0], read_of(statement.value)
        if axis is None:
            continue
        if axis == -1 and isinstance(target, (ast.Tuple, ast.List)):
            for position, element in enumerate(target.elts[:2]):
                axis_named(position, element)
        elif axis in (0, 1) and isinstance(target, ast.Name):
            axis_named(axis, target)
    return said


def _size_read(node: ast.AST, axis: int, *, unpacked: bool = False) -> bool:
    """``x.size(axis)`` or ``x.shape[axis]`` (``unpacked``: also ``s[axis]`` of ``s = x.shape``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "size" and [int_literal(a) for a in node.args] == [axis]
    return (
        isinstance(node, ast.Subscript)
        and (
            (isinstance(node.value, ast.Attribute) and node.value.attr == "shape")
            or (unpacked and isinstance(node.value, ast.Name))
        )
        and int_literal(node.slice) == axis
    )


def _second(node: ast.AST) -> bool:
    """A tensor's own second size, ``s[1]`` of ``s = x.shape``, ``x.shape[1]``, ``x.size(1)``.

    Kept second in a split into heads and again in the merge, it is the length: a batch axis
    there would attend across batch items.
    """
    return _size_read(node, 1, unpacked=True)


def _batch_size(node: ast.AST) -> bool:
    """A batch size: by its name (``bsz``, ``self.batch_size``), ``x.size(0)``, ``x.shape[0]``."""
    name = last_name(node)
    if name is not None:
        return _BATCH.fullmatch(name) is not None
    return _size_read(node, 0)


def _head_size(node: ast.AST) -> bool:
    """A size named for one head's width: ``dim_head``, ``self.head_dim``, ``d_k``."""
    name = last_name(node)
    return name is not None and names_a_head_size(name)


def _unwrapped(node: ast.expr) -> ast.expr:
    """``torch.tensor(x, dtype=...)`` / ``float(x)``: the number it holds, ``x``."""
    if (
        isinstance(node, ast.Call)
        and last_name(node.func) in ("tensor", "float", "as_tensor")
        and node.args
    ):
        return node.args[0]
    return node


def _features_first(left: ast.AST, right: ast.AST) -> bool:
    """``q.transpose(-2, -1) @ k``: queries and keys laid out [..., d, N], named so.

    The query may be a name it was moved into (``x_q = conv(x).permute(0, 2, 1)``).
    """
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute):
        if left.func.attr not in ("transpose", "permute", "mT", "t"):
            return False
        left = left.func.value
    return _role(last_name(left)) == "query" and _role(last_name(right)) == "key"


def _keys_first(left: ast.AST, right: ast.AST) -> bool:
    """``keys @ queries.transpose(1, 2)``: scores laid out [B, S, L], keys before queries.

    Named so on both sides, the product's key axis is not its last one: it is not read as
    scores (``softmax(dim=1)`` is right there).
    """
    while isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute):
        right = right.func.value  # queries.transpose(1, 2), queries.permute(0, 2, 1)
    return _role(last_name(left)) == "key" and _role(last_name(right)) == "query"


def _role(name: str | None) -> str | None:
    """Which sequence a name counts or holds: ``"query"``, ``"key"`` or None."""
    if name is None:
        return None
    word = name.lower()
    if LENGTH_NAMES.fullmatch(word):
        return "key" if re.search(r"(^|_)(k|v|kv|key|src)(_|len|$)|(kv|k)$", word) else "query"
    if _QUERY.fullmatch(word):
        return "query"
    if _KEY.fullmatch(word):
        return "key"
    return None


def _as_dim(value: object, node: ast.AST) -> Dim:
    """A constructor's size as a :class:`Dim`: a literal, a size read before, or unknown."""
    if isinstance(value, Dim):
        return value
    if isinstance(value, Const) and value.value == int(value.value):
        return Dim(Origin(node, ""), None, int(value.value))
    return Dim(Origin(node, ""))
