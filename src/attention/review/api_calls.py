"""Attention APIs called: SDPA, ``nn.MultiheadAttention`` and the layers built on it, flex masks.

What each API's row in :mod:`~attention.review.apis` says (argument positions, convention)
is read here when the pass meets a call, and the value passed is handed to the rules.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import apis, interproc
from attention.review.events import (
    CausalFlag,
    MaskAtApi,
    ModuleCalled,
    ModuleInput,
    ScoresScaled,
    SoftmaxAlong,
    WindowAtApi,
    emit,
)
from attention.review.ops import (
    normalisation,
)
from attention.review.ops.positions import (
    _MIRRORED,
    _TRIANGLES,
)
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation, shorts
from attention.review.provenance import (
    Embedded,
    Mask,
    Module,
    Origin,
    Scores,
    Weights,
)
from attention.review.roles import (
    _ids_layout,
    _tokenizer_ids,
)
from attention.review.sinks import (
    ADDITIVE_CONVENTIONS,
    CONVENTIONS,
    FLEX_MASK_MAKERS,
    MHA_FORWARD,
    MODULE_APIS,
    NO_DIM,
    OWN_SDPA,
    SDPA,
)
from attention.review.syntax import (
    FunctionNode,
    is_none,
    is_true,
)
from attention.review.values import (
    AnyValue,
    Dim,
    Instance,
    Layers,
    Tensor,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


def _padding_name_as_attn_mask(argument: apis.Argument, value: AnyValue | None) -> bool:
    """Whether a padding mask by its name goes where an ``attn_mask`` is read.

    A ``[B, S]`` padding mask cannot be an ``attn_mask`` (``[L, S]`` or ``[B·H, L, S]``): where
    it goes contradicts its name.
    """
    return (
        argument.role == "mask" and isinstance(value, Mask) and value.by_name and value.key_padding
    )


def layers_of(ev: Interpreter, node: ast.AST, origin: Origin) -> Layers | None:
    """The one kind of module a ``ModuleList``'s argument holds.

    A comprehension's element, or a list or tuple whose elements are all that module (the
    same kind and layout).
    """
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        elements = [node.elt]
    elif isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        elements = list(node.elts)
    else:
        return None
    modules = [ev.ev(element) for element in elements]
    first = modules[0]
    if isinstance(first, Instance):
        # layers of a class of this module: all of that class
        same = all(isinstance(o, Instance) and o.cls is first.cls for o in modules[1:])
        return Layers(origin, first) if same else None
    if not isinstance(first, Module) or first.kind not in MODULE_APIS:
        return None
    if any(
        not isinstance(other, Module)
        or (other.kind, other.batch_first) != (first.kind, first.batch_first)
        for other in modules[1:]
    ):
        return None
    return Layers(origin, first)


def embedded(ev: Interpreter, node: ast.Call) -> Embedded | None:
    """An embedding of token ids the code shows batch first: ``[B, T, E]``.

    The ids are a tokenizer's ``input_ids`` (``batch["input_ids"]``, ``enc.input_ids``,
    always ``[B, T]``), or the function reads their sizes under names that say so
    (``bsz, seq_len = ids.shape``, ``batch_size = ids.size(0)``, ``T = ids.shape[1]``)
    and nowhere the other way round (``seq_len = src.size(0)``, the sequence-first layout
    of PyTorch's word-language model).  Anything else is unknown.
    """
    args = ev.args(node)
    if not args or args[0].keyword or args[0].star:
        return None
    ids = args[0].value
    origin = Origin(node, "an nn.Embedding of token ids [B, T]: batch first, [B, T, E]")
    if _tokenizer_ids(ids):
        return Embedded(origin)
    if not isinstance(ids, ast.Name) or not ev.functions:
        return None
    first = _ids_layout(ev.functions[-1], ids.id)
    return Embedded(origin) if first == {"batch"} else None


def construct(ev: Interpreter, kind: str, node: ast.Call, values: list[AnyValue | None]) -> Module:
    """A constructed ``nn.MultiheadAttention`` / ``nn.Transformer*`` module."""
    batch_first = False
    for arg in ev.args(node):
        if arg.keyword == "batch_first":
            batch_first = is_true(arg.value)
    if kind in ("encoder", "decoder") and values and isinstance(values[0], Module):
        batch_first = values[0].batch_first
    return Module(kind, batch_first, Origin(node, ""))


def module_call(
    ev: Interpreter, module: Module, node: ast.Call, values: list[AnyValue | None]
) -> AnyValue | None:
    """A call of a constructed module: its mask parameters and its input layout."""
    if module.kind == "embedding":
        return embedded(ev, node)
    if module.kind in ("softmax", "linear", "conv", "same", "sequential"):
        return layer(ev, module, node, values[0] if values else None)
    row = MODULE_APIS.get(module.kind)
    api = row.label if row is not None else f"nn.{module.kind}"
    for mask_argument in row.masks if row is not None else ():
        keyword = mask_argument.keyword
        arg, value = ev.argument(node, values, mask_argument.position, keyword)
        if _padding_name_as_attn_mask(mask_argument, value):
            continue
        if arg is not None and isinstance(value, Mask):
            emit(ev, MaskAtApi("forbidden", value, arg, f"{api}({keyword}=…)"))
    if row is not None:
        emit(ev, ModuleCalled(row, node, values, api))
    args = ev.args(node)
    if args and args[0].keyword is None and not args[0].star:
        emit(ev, ModuleInput(module, api, args[0].value, values[0]))
    return None


def layer(
    ev: Interpreter, module: Module, node: ast.Call, subject: AnyValue | None
) -> AnyValue | None:
    """A layer applied to a tensor: its new sizes, or the softmax it takes."""
    origin = Origin(node, "")
    if module.kind == "softmax":
        at = module.origin.node
        dim = module.dim if module.dim is not None or module.implicit else NO_DIM
        if isinstance(subject, Tensor):
            emit(ev, SoftmaxAlong(subject, module.dim, at))
            return Weights(origin)
        if not isinstance(subject, Scores):
            return Weights(origin=origin) if subject is None else None
        return normalisation.softmax(ev, node, subject, 0, dim=(dim, at))
    if module.kind == "sequential":
        value = subject
        for part in module.parts:
            value = layer(ev, part, node, value) if isinstance(part, Module) else None
        return value
    if isinstance(subject, Embedded) and module.kind in ("same", "linear"):
        return subject  # a norm, an activation, dropout, a projection: the layout stays
    sizes = subject.sizes if isinstance(subject, Tensor) else None
    if module.kind == "same":
        return Tensor(origin, sizes=sizes) if sizes is not None else None
    if module.kind == "linear":
        rest = sizes[:-1] if sizes else None
        out = Dim(module.origin, None, module.out)
        return Tensor(
            origin,
            sizes=(*rest, out) if rest is not None else (out,),
            open=None if rest is not None else "end",
            features=module.origin,
        )
    if module.kind == "conv":
        channels = Dim(module.origin, None, module.out)
        if sizes is not None and len(sizes) >= 3:
            return Tensor(origin, sizes=(sizes[0], channels, *(Dim(origin) for _ in sizes[2:])))
        return Tensor(origin, sizes=(Dim(origin), channels), open="start")
    return None


def sdpa(ev: Interpreter, node: ast.Call, values: list[AnyValue | None]) -> None:
    """``F.scaled_dot_product_attention``: ``attn_mask``, ``is_causal`` and ``scale``."""
    row = apis.SDPA
    api = row.label
    attn_mask = row.argument("attn_mask")
    arg, mask = ev.given(node, values, attn_mask)
    causal_arg, _ = ev.given(node, values, row.argument("is_causal"))
    causal = causal_arg is not None and is_true(causal_arg.value)
    if arg is not None and not is_none(arg.value) and isinstance(mask, Mask):
        emit(ev, MaskAtApi("allowed", mask, arg, f"{api}({attn_mask.keyword}=…)"))
    if causal and causal_arg is not None:
        query, key = [*values, None, None][:2]
        masked = arg is not None and not is_none(arg.value)
        emit(ev, CausalFlag(api, causal_arg, masked, query, key))
    scale_arg, scale = ev.given(node, values, row.argument("scale"))
    if scale_arg is not None:
        emit(ev, ScoresScaled(scale, scale_arg.value, divide=False))


def mask_mod(ev: Interpreter, node: ast.AST) -> None:
    """A ``flex_attention`` ``mask_mod``: the triangle its comparison allows."""
    function: FunctionNode | ast.Lambda | None = None
    if isinstance(node, ast.Lambda):
        function = node
    elif isinstance(node, ast.Name):
        function = interproc.function_named(ev, node.id, method=False)
    if function is None:
        return
    params = [arg.arg for arg in function.args.args]
    if len(params) != 4:
        return
    body: ast.AST | None = None
    if isinstance(function, ast.Lambda):
        body = function.body
    else:
        for statement in function.body:
            if isinstance(statement, ast.Return) and statement.value is not None:
                body = statement.value
    if not isinstance(body, ast.Compare) or len(body.ops) != 1:
        return
    left, right = body.left, body.comparators[0]
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Name)):
        return
    q, kv = params[2], params[3]
    operator = type(body.ops[0])
    if (left.id, right.id) == (kv, q):
        operator = _MIRRORED.get(operator, operator)  # kv <= q is q >= kv
    elif (left.id, right.id) != (q, kv):
        return
    found = _TRIANGLES.get(operator)
    if found is None:
        return
    mask = Mask("mask", Origin(body, "the mask_mod's return value"), "bool", true_set=found)
    emit(ev, MaskAtApi("allowed", mask, body, "flex_attention's mask_mod (True = may attend)"))


@operation(*shorts([SDPA]))
def sdpa_call(ev: Interpreter, c: Call) -> Reading:
    """``F.scaled_dot_product_attention``: its mask, causal flag and scale to the rules."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified == SDPA:
        sdpa(ev, node, values)
        return None
    return NOT_MINE


@operation(*shorts(OWN_SDPA))
def own_sdpa_call(ev: Interpreter, c: Call) -> Reading:
    """``attention.scaled_dot_product_attention``: its Boolean ``allowed`` mask to the rules."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified in OWN_SDPA:
        allowed = apis.OWN_SDPA.argument("allowed")
        arg, value = ev.given(node, values, allowed)
        # a mask that is not Boolean raises MaskDtypeError there: no silent mistake to report
        if arg is not None and isinstance(value, Mask) and value.dtype in ("bool", None):
            emit(
                ev, MaskAtApi("allowed", value, arg, f"{apis.OWN_SDPA.label}({allowed.keyword}=…)")
            )
        return None
    return NOT_MINE


@operation(*shorts([MHA_FORWARD]))
def mha_forward_call(ev: Interpreter, c: Call) -> Reading:
    """``F.multi_head_attention_forward``: its masks (True = forbidden) to the rules."""
    node, values, qualified = c.node, c.values, c.qualified
    if qualified == MHA_FORWARD:
        for mask in apis.MHA_FORWARD.masks:
            # at its position or by its keyword, as the row says
            arg, value = ev.given(node, values, mask)
            if arg is not None and isinstance(value, Mask):
                label = f"{apis.MHA_FORWARD.label}({mask.keyword}=…)"
                emit(ev, MaskAtApi("forbidden", value, arg, label))
        return None
    return NOT_MINE


@operation(*CONVENTIONS)
def own_convention(ev: Interpreter, c: Call) -> Reading:
    """``attention.conventions``' converters: a Boolean mask of the convention each returns."""
    node, qualified, short = c.node, c.qualified, c.short
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
    return NOT_MINE


@operation("allowed_to_hf_attention_mask")
def own_hf_mask(ev: Interpreter, c: Call) -> Reading:
    """``allowed_to_hf_attention_mask``: an integer 1 = attend padding mask."""
    qualified, short, origin = c.qualified, c.short, c.origin
    if short == "allowed_to_hf_attention_mask" and qualified and qualified.startswith("attention"):
        return Mask("mask", origin, "int", "allowed", key_padding=True, ndim=2, hf=True)
    return NOT_MINE


@operation(*ADDITIVE_CONVENTIONS)
def own_additive(ev: Interpreter, c: Call) -> Reading:
    """``attention.conventions``' converters to an additive mask (0 / -inf)."""
    qualified, short, origin = c.qualified, c.short, c.origin
    if short in ADDITIVE_CONVENTIONS and qualified and qualified.startswith("attention"):
        return Mask("additive", origin, dtype="float")
    return NOT_MINE


@operation("attention_scores")
def own_scores(ev: Interpreter, c: Call) -> Reading:
    """``attention_scores``: scaled scores."""
    qualified, short, origin = c.qualified, c.short, c.origin
    if short == "attention_scores" and qualified and qualified.startswith("attention"):
        return Scores(origin, scaled=True)
    return NOT_MINE


@operation(*FLEX_MASK_MAKERS)
def flex_mask_maker(ev: Interpreter, c: Call) -> Reading:
    """``create_block_mask(mask_mod, …)``: the ``mask_mod`` returns True = may attend."""
    args, qualified, short = c.args, c.qualified, c.short
    if short in FLEX_MASK_MAKERS and qualified and ("flex_attention" in qualified):
        if args:
            mask_mod(ev, args[0].value)
        return None
    return NOT_MINE


@operation(*shorts(apis.FUNCTIONS))
def masks_by_row(ev: Interpreter, c: Call) -> Reading:
    r"""An attention function no reading above reads: its masks, by its row's conventions.

    Each Boolean mask the call is given goes to the rules with the convention its row in
    :mod:`~attention.review.apis` states.  A new function is a row there.  The call's result
    stays unknown, so the readings after this one are still offered the call.

    >>> from attention.review.check import check_source
    >>> source = (
    ...     "import jax\n"
    ...     "def attend(q, k, v, ids, pad_id):\n"
    ...     "    padding = (ids == pad_id)[:, None, None, :]\n"
    ...     "    return jax.nn.dot_product_attention(q, k, v, mask=padding)\n"
    ... )
    >>> [(finding.code, finding.line) for finding in check_source(source, "case.py")]
    [('AM101', 4)]
    """
    api = apis.FUNCTIONS.get(c.qualified or "")
    if api is None:
        return NOT_MINE
    for argument in api.arguments:
        if argument.role not in ("window", "window_left"):
            continue
        for given in _handed(ev, c.node, argument):
            lefts = [given] if argument.role == "window_left" else _first_items(ev, given)
            if not lefts and argument.single_is_both:
                lefts = [given]  # one size for both sides
            for left in lefts:
                label = f"{api.label}({argument.keyword}=…)"
                emit(ev, WindowAtApi(left, given, label, argument.claims))
    for argument in api.masks:
        if argument.boolean is None:
            continue
        arg, value = ev.given(c.node, c.values, argument)
        if arg is not None and isinstance(value, Mask) and value.dtype in ("bool", None):
            label = f"{api.label}({argument.keyword}=…)"
            emit(ev, MaskAtApi(argument.boolean, value, arg, label, argument.claims))
    return NOT_MINE


def _assigned(ev: Interpreter, name: str) -> list[ast.expr]:
    """What the enclosing function assigns to ``name`` (``name = …``), in order."""
    if not ev.functions:
        return []
    return [
        node.value
        for node in ast.walk(ev.functions[-1])
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]


def _entries(ev: Interpreter, mapping: ast.expr, key: str) -> list[ast.expr]:
    """The values ``mapping`` (a dict written in the function, ``**`` into a call) gives ``key``.

    ``mapping`` is a dict literal, either branch of ``a if c else b``, or a name assigned such a
    dict or given ``name[key] = …``.
    """
    if isinstance(mapping, ast.Dict):
        return [
            value
            for k, value in zip(mapping.keys, mapping.values, strict=True)
            if isinstance(k, ast.Constant) and k.value == key
        ]
    if isinstance(mapping, ast.IfExp):
        return _entries(ev, mapping.body, key) + _entries(ev, mapping.orelse, key)
    if isinstance(mapping, ast.Name) and ev.functions:
        found = [e for value in _assigned(ev, mapping.id) for e in _entries(ev, value, key)]
        for node in ast.walk(ev.functions[-1]):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == mapping.id
                        and isinstance(target.slice, ast.Constant)
                        and target.slice.value == key
                    ):
                        found.append(node.value)
        return found
    return []


def _handed(ev: Interpreter, call: ast.Call, argument: apis.Argument) -> list[ast.expr]:
    """The expressions a call gives ``argument``: by keyword, by position, or in a ``**`` dict."""
    for keyword in call.keywords:
        if keyword.arg == argument.keyword:
            return [keyword.value]
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    if argument.position is not None and not starred and argument.position < len(call.args):
        return [call.args[argument.position]]
    return [
        entry
        for keyword in call.keywords
        if keyword.arg is None
        for entry in _entries(ev, keyword.value, argument.keyword)
    ]


def _first_items(ev: Interpreter, given: ast.expr) -> list[ast.expr]:
    """The first item of a pair written in the function (``(a, b)``, or a name assigned one)."""
    if isinstance(given, (ast.Tuple, ast.List)) and given.elts:
        return [given.elts[0]]
    if isinstance(given, ast.Name):
        return [
            value.elts[0]
            for value in _assigned(ev, given.id)
            if isinstance(value, (ast.Tuple, ast.List)) and value.elts
        ]
    return []
