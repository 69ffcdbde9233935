r"""One pass over a file's syntax tree, asking each rule about the calls it cares about.

The file is parsed once with libcst.  Names are qualified from the file's own imports as the pass
meets them (``F.softmax``, ``torch.nn.functional.softmax`` and ``from torch.nn.functional import
softmax as sm`` all read as ``torch.nn.functional.softmax``): libcst's scope analysis costs seven
parses per file, and a name imported under an alias is all the checker needs.  Positions are
computed only for a file that has a finding.  A file whose text names none of the APIs the rules
watch is not parsed at all.

Each function body is read in order; every expression is evaluated to a
:mod:`~attention.review.provenance` value, kept per name, and every call that consumes a mask,
scores or weights is checked against the rules (:mod:`attention.review.rules`).

>>> findings = check_source("import torch.nn.functional as F\n"
...     "def f(q, k, v, ids, PAD):\n"
...     "    pad = ids == PAD\n"
...     "    return F.scaled_dot_product_attention(q, k, v, attn_mask=pad)\n")
>>> [(f.line, f.code) for f in findings]
[(4, 'AM101')]
>>> findings[0].inferred[0]
'`pad` is True = padding / masked out (line 3: `ids == PAD`)'
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from attention.review.provenance import (
    CAUSAL,
    Const,
    Dtype,
    Embedded,
    KeyCat,
    Mask,
    Meaning,
    Module,
    Origin,
    Scale,
    Scores,
    Triangle,
    Value,
    Weights,
    mask_from_name,
    scale_from_name,
)

__all__ = ["KEYWORDS", "Finding", "Hit", "check_source", "could_hold_finding"]

KEYWORDS = (
    "softmax(",
    "masked_fill",
    "attn_mask",
    "key_padding_mask",
    "is_causal",
    "scaled_dot_product_attention",
    "MultiheadAttention",
    "TransformerEncoder",
    "TransformerDecoder",
    "nn.Transformer",
    "import Transformer",
    "create_block_mask",
    "create_mask(",
)
"""A file holds a finding only if its text names one of these."""


def could_hold_finding(text: str) -> bool:
    r"""Say whether the text names any API a rule watches: the cheap test before parsing.

    >>> could_hold_finding("import os\nprint(os.sep)\n")
    False
    """
    return any(word in text for word in KEYWORDS)


@dataclass(frozen=True)
class Hit:
    """A rule's finding before positions are known: the node, what it is, what it came from."""

    code: str
    node: cst.CSTNode
    subject: str
    expects: str
    facts: tuple[tuple[str, Origin], ...] = ()
    fix: str | None = None


@dataclass(frozen=True)
class Finding:
    """One finding: where, which rule, what was inferred from which line, what the API expects."""

    path: str
    line: int
    column: int
    code: str
    subject: str
    expects: str
    inferred: tuple[str, ...]
    end_line: int
    fix_code: str | None = None
    node: cst.CSTNode | None = dataclasses.field(default=None, compare=False, repr=False)


SDPA = "torch.nn.functional.scaled_dot_product_attention"
OWN_SDPA = (
    "attention.scaled_dot_product_attention",
    "attention.scaled_dot_product.scaled_dot_product_attention",
)
_NO_DIM = -(2**31)
"""An ``nn.Softmax`` whose ``dim`` is given but is not a literal: nothing to check."""
SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
MHA_FORWARD = "torch.nn.functional.multi_head_attention_forward"
MODULES = {
    "MultiheadAttention": "mha",
    "TransformerEncoderLayer": "encoder_layer",
    "TransformerEncoder": "encoder",
    "TransformerDecoderLayer": "decoder_layer",
    "TransformerDecoder": "decoder",
    "Transformer": "transformer",
}
# keyword → positional index of the masks each module's forward takes (all forbidden / additive)
MODULE_MASKS: dict[str, dict[str, int | None]] = {
    "mha": {"key_padding_mask": 3, "attn_mask": 5},
    "encoder_layer": {"src_mask": 1, "src_key_padding_mask": 2},
    "encoder": {"mask": 1, "src_key_padding_mask": 2},
    "decoder_layer": {
        "tgt_mask": 2,
        "memory_mask": 3,
        "tgt_key_padding_mask": 4,
        "memory_key_padding_mask": 5,
    },
    "decoder": {
        "tgt_mask": 2,
        "memory_mask": 3,
        "tgt_key_padding_mask": 4,
        "memory_key_padding_mask": 5,
    },
    "transformer": {
        "src_mask": 2,
        "tgt_mask": 3,
        "memory_mask": 4,
        "src_key_padding_mask": 5,
        "tgt_key_padding_mask": 6,
        "memory_key_padding_mask": 7,
    },
}
CONVENTIONS = {
    "allowed_to_forbidden": ("forbidden", False),
    "forbidden_to_allowed": ("allowed", False),
    "allowed_to_mha_attn_mask": ("forbidden", False),
    "allowed_to_mha_key_padding_mask": ("forbidden", True),
    "mha_attn_mask_to_allowed": ("allowed", False),
    "mha_key_padding_mask_to_allowed": ("allowed", False),
    "hf_attention_mask_to_allowed": ("allowed", False),
    "causal_allowed": ("allowed", False),
    "bidirectional_allowed": ("allowed", False),
    "prefix_lm_allowed": ("allowed", False),
    "sliding_window_allowed": ("allowed", False),
    "block_diagonal_allowed": ("allowed", False),
    "key_padding_allowed": ("allowed", False),
    "source_padding_allowed": ("allowed", False),
    "query_padding_allowed": ("allowed", False),
    "intersect_allowed": ("allowed", False),
    "union_allowed": ("allowed", False),
}
ADDITIVE_CONVENTIONS = ("allowed_to_additive", "forbidden_to_additive")
CONSTRUCTORS = ("ones", "zeros", "full", "empty", "ones_like", "zeros_like", "full_like")
FLOAT_METHODS = ("float", "half", "double", "bfloat16")
INT_METHODS = ("long", "int", "byte", "short", "char")
KEEP_METHODS = (
    "expand",
    "expand_as",
    "contiguous",
    "clone",
    "detach",
    "cuda",
    "cpu",
    "to_dense",
    "requires_grad_",
)
SCALING_METHODS = ("mul", "mul_", "div", "div_", "multiply", "divide", "mul_scalar")
HEAD_COUNT = re.compile(
    r"\b(num_heads|num_head|n_heads?|nheads?|heads|num_attention_heads|attention_heads"
    r"|head_count|n_head_channels)\b"
)
"""Names of a head count: attention split into heads, where the head size is not the width."""
SCALE_WORDS = ("scale", "scaling", "sqrt", "temperature", "norm_factor")
"""A function that names any of these scales its scores somewhere the pass may not follow."""
PENALTY = -1e3
"""A fill at or below this is a penalty meant to forbid (−inf, finfo.min, −1e9, −1e4)."""
FLOAT16_MAX = 65504.0
ATTENTION_WORDS = ("mask", "attn", "attention", "score", "logit", "energy", "sim")
"""A fill of a tensor whose expression names none of these is not shown to be about attention."""
NOT_ZEROING = -10.0
"""A fill at or above this leaves a masked key a weight of at least e^-10 of a zero score."""


@dataclass(frozen=True)
class _Transposed:
    """A key transposed for ``q @ k^T``."""

    origin: Origin


@dataclass(frozen=True)
class _ScaledTensor:
    """A tensor multiplied or divided by something (a query scaled before ``q @ k^T``)."""

    origin: Origin


@dataclass(frozen=True)
class _Created:
    """A tensor made by ``torch.ones`` / ``zeros`` / ``full`` / ``empty``, of a known dtype."""

    origin: Origin
    dtype: Dtype | None


@dataclass(frozen=True)
class _Float32:
    """A tensor converted with ``.float()`` or ``.double()``: no float16 fill can overflow it."""

    origin: Origin


@dataclass(frozen=True)
class _Finfo:
    """``torch.finfo(dtype)``: its ``.min`` is a constant that overflows when added twice."""

    origin: Origin


@dataclass(frozen=True)
class _Unknown:
    """A name whose value the pass cannot tell.

    It was reassigned from something the pass does not model, or bound to different values on
    different paths; its name then proves nothing either.
    """


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class _Param:
    """A function's parameter, as yet unassigned: its name is the evidence there is.

    ``boolean``: annotated ``torch.BoolTensor`` or jaxtyping's ``Bool[Tensor, ...]``.
    """

    boolean: bool = False


PARAM = _Param()
BOOL_PARAM = _Param(boolean=True)

_Any = Value | _Transposed | _ScaledTensor | _Finfo | _Float32 | _Created | _Unknown | _Param


def _int_literal(node: cst.BaseExpression | None) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def _is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _names_in(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:  # noqa: N802 - libcst's name
            found.append(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:  # noqa: N802 - libcst's name
            found.append(attribute.attr.value)
            attribute.value.visit(self)
            return False

    node.visit(_Collect())
    return found


def _has_division(node: cst.CSTNode) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_BinaryOperation(self, op: cst.BinaryOperation) -> None:  # noqa: N802 - libcst's name
            nonlocal found
            if isinstance(op.operator, (cst.Divide, cst.FloorDivide)):
                found = True

    node.visit(_Find())
    return found


class _Checker:
    """The state of one pass: imports, names per scope, the hits so far."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.imports: dict[str, str] = {}
        self.globals: dict[str, _Any] = {}
        self.scopes: list[dict[str, _Any]] = [self.globals]
        self.attributes: list[dict[str, _Any]] = [{}]
        self.defs: dict[str, cst.FunctionDef] = {}
        self.hits: list[Hit] = []
        self.pending: dict[int, Hit] = {}
        self.functions: list[cst.FunctionDef] = []
        self.scaled_functions: dict[int, bool] = {}
        self.classes: list[cst.ClassDef] = []
        self.returns: list[list[_Any | None]] = []
        self.summaries: dict[int, _Any | None] = {}
        self.summarising = False
        self.specialising = False
        self.texts: dict[int, str] = {}

    # -- names -----------------------------------------------------------------------------------

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def qualname(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Name):
            return self.imports.get(node.value)
        if isinstance(node, cst.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def lookup(self, name: str) -> _Any | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, target: cst.BaseExpression, value: _Any | None) -> None:
        if isinstance(target, cst.Name):
            if value is None and target.value not in self.scopes[-1]:
                # a new name for a value the pass does not model: its name is the evidence
                self.scopes[-1].pop(target.value, None)
            else:
                # a name reassigned from what the pass does not model proves nothing any more
                self.scopes[-1][target.value] = UNKNOWN if value is None else value
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            self.attributes[-1][target.attr.value] = UNKNOWN if value is None else value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind(element.value, None)

    def hit(
        self,
        code: str,
        node: cst.CSTNode,
        expects: str,
        facts: Iterable[tuple[str, Origin]] = (),
        fix: str | None = None,
    ) -> Hit:
        if isinstance(node, cst.Arg):
            node = node.value
        found = Hit(code, node, self.code(node), expects, tuple(facts), fix)
        self.hits.append(found)
        return found

    # -- statements ------------------------------------------------------------------------------

    def statements(self, body: Sequence[cst.CSTNode]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small)
        elif isinstance(node, cst.FunctionDef):
            self.defs[node.name.value] = node
            self.scopes.append(_parameters(node))
            self.functions.append(node)
            self.returns.append([])
            try:
                self.statements(_body(node.body))
            finally:
                self.scopes.pop()
                self.functions.pop()
                self.returns.pop()
        elif isinstance(node, cst.ClassDef):
            self.classes.append(node)
            self.attributes.append({})
            self.scopes.append({})
            try:
                self.statements(_body(node.body))
            finally:
                self.scopes.pop()
                self.attributes.pop()
                self.classes.pop()
        elif isinstance(node, cst.If):
            self.scan(node.test)
            orelse = node.orelse
            guard = _guard(node.test)

            def then() -> None:
                self.narrow(guard, holds=True)
                self.statements(_body(node.body))

            def otherwise() -> None:
                self.narrow(guard, holds=False)
                if orelse is not None:
                    self.statement(orelse)

            if orelse is None and _leaves(node.body):
                # `if m.dtype != torch.bool: raise …`: after the if, the test was false
                names, attributes = dict(self.scopes[-1]), dict(self.attributes[-1])
                then()
                self.scopes[-1], self.attributes[-1] = names, attributes
                self.narrow(guard, holds=False)
                if len(self.scopes) == 1:
                    self.globals = self.scopes[0]
            else:
                self.branches([then, otherwise], exhaustive=True)
        elif isinstance(node, cst.Else):
            self.statements(_body(node.body))
        elif isinstance(node, (cst.For, cst.While)):
            self.scan(node.iter if isinstance(node, cst.For) else node.test)
            self.branches([lambda: self.statements(_body(node.body))], exhaustive=False)
            if node.orelse is not None:
                self.statement(node.orelse)
        elif isinstance(node, cst.With):
            for item in node.items:
                self.scan(item.item)
            self.statements(_body(node.body))
        elif isinstance(node, cst.Try):
            blocks = [node.body, *(handler.body for handler in node.handlers)]
            self.branches([self.block(body) for body in blocks], exhaustive=False)
            if node.orelse is not None:
                self.statement(node.orelse)
            if node.finalbody is not None:
                self.statements(_body(node.finalbody.body))
        elif isinstance(node, (cst.Finally,)):
            self.statements(_body(node.body))
        else:
            for child in node.children:
                if isinstance(child, cst.BaseSuite):
                    self.statements(_body(child))
                elif isinstance(child, cst.BaseExpression):
                    self.scan(child)

    def summary(self, function: cst.FunctionDef) -> _Any | None:
        """What a function of this module (or a method called on ``self``) returns.

        Its body is read once more with its parameters unknown (their names are evidence, as
        anywhere), its findings dropped (they were reported where it was defined), and the
        values of its ``return`` statements joined.  The bound: one level, so a helper called
        from a helper being summarised returns unknown, and a function defined after the call
        (or imported from another module) is not followed.
        """
        key = id(function)
        if key in self.summaries:
            return self.summaries[key]
        if self.summarising:
            return None
        self.summarising = True
        hits, pending = list(self.hits), dict(self.pending)
        attributes = dict(self.attributes[-1])
        self.scopes.append(_parameters(function))
        self.functions.append(function)
        self.returns.append([])
        try:
            self.statements(_body(function.body))
            returned = self.returns[-1]
        finally:
            self.scopes.pop()
            self.functions.pop()
            self.returns.pop()
            self.hits, self.pending = hits, pending
            self.attributes[-1] = attributes
            self.summarising = False
        joined = _shared([{"r": UNKNOWN if one is None else one} for one in returned])
        value = joined.get("r") if returned else None
        if isinstance(value, (_Unknown, _Param)):
            value = None
        self.summaries[key] = value
        return value

    def specialise(
        self, function: cst.FunctionDef, node: cst.Call, values: list[_Any | None], *, method: bool
    ) -> tuple[bool, _Any | None]:
        """A helper of this module read once more with the masks this call passes it.

        Where a call hands a helper a mask the caller knows (``attend(q, k, v, ids == pad)``),
        the helper's body is read again with its parameters bound to the call's values: what
        the helper does with that mask is then checked like code of the caller's, and its
        findings are kept (a finding already made where the helper was defined is reported
        once).  The bound: one level (nothing is followed from a helper being read this way or
        summarised), positional and keyword arguments only (``*args`` reads nothing), and only
        helpers defined before the call.  Says whether it read the helper, and what it returns.
        """
        if self.summarising or self.specialising or not any(isinstance(v, Mask) for v in values):
            return False, None
        params = function.params
        order = [param.name.value for param in (*params.posonly_params, *params.params)]
        if method and order and order[0] == "self":
            order = order[1:]
        names = _parameters(function)
        position = 0
        for arg, value in zip(node.args, values, strict=True):
            if arg.star:
                return False, None
            if arg.keyword is None:
                if position >= len(order):
                    return False, None
                name = order[position]
                position += 1
            else:
                name = arg.keyword.value
                if name not in names:
                    return False, None
            if value is not None:
                names[name] = value
        self.specialising = True
        attributes = dict(self.attributes[-1])
        self.scopes.append(names)
        self.functions.append(function)
        self.returns.append([])
        try:
            self.statements(_body(function.body))
            returned = self.returns[-1]
        finally:
            self.scopes.pop()
            self.functions.pop()
            self.returns.pop()
            self.attributes[-1] = attributes
            self.specialising = False
        joined = _shared([{"r": UNKNOWN if one is None else one} for one in returned])
        value = joined.get("r") if returned else None
        return True, (None if isinstance(value, (_Unknown, _Param)) else value)

    def narrow(self, guard: tuple[cst.Name, str, bool] | None, *, holds: bool) -> None:
        """Bind what a dtype test proves about a name on one side of its ``if``."""
        if guard is None:
            return
        node, fact, positive = guard
        name = node.value
        value = self.ev(node)
        if not isinstance(value, Mask):
            return
        is_fact = positive == holds
        if fact == "bool" and is_fact:
            if value.kind == "mask" and not (value.by_name and value.hf):
                self.scopes[-1][name] = value.but(dtype="bool", hf=False)
            else:
                self.scopes[-1][name] = UNKNOWN
        elif (fact == "bool" or (fact == "float" and is_fact)) and (
            value.by_name or value.dtype in ("bool", None)
        ):
            # not Boolean (or floating point): what its name or an earlier line said is moot
            self.scopes[-1][name] = UNKNOWN

    def block(self, body: cst.BaseSuite) -> Callable[[], None]:
        """Reading ``body``, to run later as one branch."""
        return lambda: self.statements(_body(body))

    def branches(self, runs: list[Callable[[], None]], *, exhaustive: bool) -> None:
        """Run each branch from the same state; afterwards a name keeps only a value they share.

        A mask flipped on one path is not taken for flipped on the other (``if sdpa: m = ~m
        else: mha(key_padding_mask=m)``); with no ``else`` the state before is one of the paths.
        """
        names, attributes = self.scopes[-1], self.attributes[-1]
        ends = []
        for run in runs:
            self.scopes[-1], self.attributes[-1] = dict(names), dict(attributes)
            run()
            ends.append((self.scopes[-1], self.attributes[-1]))
        if not exhaustive:
            ends.append((names, attributes))
        self.scopes[-1] = _shared([end[0] for end in ends])
        self.attributes[-1] = _shared([end[1] for end in ends])
        if len(self.scopes) == 1:
            self.globals = self.scopes[0]

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = self.code(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.imports[alias.asname.name.value] = dotted
                else:
                    top = dotted.split(".")[0]
                    self.imports[top] = top
        elif isinstance(node, cst.ImportFrom):
            if node.module is None or node.relative or isinstance(node.names, cst.ImportStar):
                return
            base = self.code(node.module)
            for alias in node.names:
                name = self.code(alias.name)
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                self.imports[local] = f"{base}.{name}"
        elif isinstance(node, cst.Assign):
            value = self.ev(node.value)
            for target in node.targets:
                if isinstance(target.target, cst.Subscript):
                    self.index_fill(target.target, value, node.value)
                self.bind(target.target, value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.ev(node.value))
        elif isinstance(node, cst.AugAssign):
            value = self.binary(node.target, node.operator, node.value, node)
            self.bind(node.target, value)
        elif isinstance(node, (cst.Expr, cst.Return)):
            if node.value is not None:
                value = self.ev(node.value)
                if isinstance(node, cst.Return) and self.returns:
                    self.returns[-1].append(value)
        else:
            for child in node.children:
                if isinstance(child, cst.BaseExpression):
                    self.scan(child)

    def scan(self, node: cst.BaseExpression) -> None:
        self.ev(node)

    # -- expressions -----------------------------------------------------------------------------

    def ev(self, node: cst.BaseExpression) -> _Any | None:
        if isinstance(node, cst.Name):
            found = self.lookup(node.value)
            if found is None:
                return mask_from_name(node.value, node)
            if isinstance(found, _Param):
                named = mask_from_name(node.value, node)
                if named is not None and found.boolean:
                    # a Boolean named like an integer HF mask: the name no longer tells its meaning
                    return None if named.hf else named.but(dtype="bool")
                return named
            return None if found is UNKNOWN else found
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, cst.Attribute):
            return self.attribute(node)
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node.left, node.operator, node.right, node)
        if isinstance(node, cst.UnaryOperation):
            return self.unary(node)
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node)
        if isinstance(node, (cst.Integer, cst.Float)):
            return Const(float(node.evaluated_value), Origin(node, "a constant"))
        if isinstance(node, cst.Lambda):
            self.ev(node.body)
            return None
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.ev(child)
            elif isinstance(child, cst.CSTNode):
                self._scan_node(child)
        return None

    def _scan_node(self, node: cst.CSTNode) -> None:
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.ev(child)
            elif isinstance(child, cst.CSTNode):
                self._scan_node(child)

    def attribute(self, node: cst.Attribute) -> _Any | None:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            found = self.attributes[-1].get(attr)
            if found is UNKNOWN:
                return None
            return found if found is not None else mask_from_name(attr, node)
        if self.qualname(node) in ("math.inf", "torch.inf", "numpy.inf"):
            return Const(float("inf"), Origin(node, "inf"))
        base = self.ev(node.value)
        if attr in ("min",) and isinstance(base, _Finfo):
            return Const(-3.0e38, Origin(node, "torch.finfo(...).min"), finfo=True)
        if attr in ("mT", "T", "mH"):
            return _Transposed(Origin(node, "transposed"))
        if attr == "data" and isinstance(base, (Mask, Scores)):
            return base
        if attr == "attention_mask":
            named = mask_from_name(attr, node)
            return named.but(batch=True) if named is not None else None
        return None

    def unary(self, node: cst.UnaryOperation) -> _Any | None:
        value = self.ev(node.expression)
        if isinstance(node.operator, cst.Minus) and isinstance(value, Const):
            return dataclasses.replace(value, value=-value.value)
        if isinstance(node.operator, cst.BitInvert) and isinstance(value, Mask):
            return self.invert(value, node)
        return None

    def invert(self, mask: Mask, node: cst.CSTNode) -> Mask:
        expects = "`~` flips a Boolean tensor only; on integers ~1 is -2 and ~0 is -1"
        if mask.by_name and not mask.batch:
            # `~` on a name is itself evidence the value is Boolean (on a float it raises):
            # a parameter's name saying "integer attention_mask" is contradicted here
            return mask.flipped(Origin(node, "inverted with `~`")).but(dtype="bool")
        if mask.kind == "additive" or mask.dtype in ("int", "float"):
            fact = (mask.says(), mask.origin)
            if mask.by_name:
                self.hit("AM702", node, expects, [fact])
            else:
                self.hit("AM701", node, expects, [fact])
            return mask.flipped(Origin(node, "inverted")).but(dtype=mask.dtype)
        return mask.flipped(Origin(node, "inverted with `~`"))

    def comparison(self, node: cst.Comparison) -> _Any | None:
        left = self.ev(node.left)
        rights = [self.ev(target.comparator) for target in node.comparisons]
        if len(node.comparisons) != 1:
            return None
        operator = node.comparisons[0].operator
        right_node = node.comparisons[0].comparator
        right = rights[0]
        equal = isinstance(operator, cst.Equal)
        unequal = isinstance(operator, cst.NotEqual)
        if equal or unequal:
            for side in (node.left, right_node):
                name = _last_name(side)
                if name is not None and "pad" in name.lower():
                    meaning: Meaning = "forbidden" if equal else "allowed"
                    return Mask(
                        "mask",
                        Origin(node, ""),
                        dtype="bool",
                        meaning=meaning,
                        key_padding=True,
                        ndim=2,
                    )
        if (
            isinstance(left, Mask)
            and left.kind == "mask"
            and isinstance(right, Const)
            and right.value in (0.0, 1.0)
        ):
            flip = (equal and right.value == 0.0) or (unequal and right.value == 1.0)
            keep = (equal and right.value == 1.0) or (unequal and right.value == 0.0)
            keep = keep or (isinstance(operator, cst.GreaterThan) and right.value == 0.0)
            if flip:
                return left.flipped(Origin(node, "")).but(dtype="bool")
            if keep:
                return left.but(dtype="bool", origin=Origin(node, ""), hf=False)
        if isinstance(left, Mask) and left.kind == "additive" and isinstance(right, Const):
            return Mask("mask", Origin(node, "a comparison"), dtype="bool")
        return None

    def subscript(self, node: cst.Subscript) -> _Any | None:
        base = self.ev(node.value)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self.ev(element.slice.value)
        if len(node.slice) == 1:
            only = node.slice[0].slice
            if (
                isinstance(only, cst.Index)
                and isinstance(only.value, cst.SimpleString)
                and only.value.evaluated_value == "attention_mask"
            ):
                named = mask_from_name("attention_mask", node)
                return named.but(batch=True) if named is not None else None
        if isinstance(base, Scores):
            return base
        if not isinstance(base, Mask):
            return None
        slices = [element.slice for element in node.slice]
        new_axes = sum(1 for s in slices if isinstance(s, cst.Index) and _is_none(s.value))
        integers = sum(1 for s in slices if isinstance(s, cst.Index) and not _is_none(s.value))
        last = slices[-1]
        key_last = base.key_last
        ellipsis = any(
            isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis) for s in slices
        )
        consumed = sum(1 for s in slices if not (isinstance(s, cst.Index) and _is_none(s.value)))
        # a trailing None moves the key axis only when every axis was named before it
        if (
            isinstance(last, cst.Index)
            and _is_none(last.value)
            and (ellipsis or (base.ndim is not None and consumed >= base.ndim))
        ):
            key_last = False
        ndim = base.ndim + new_axes - integers if base.ndim is not None else None
        return base.but(key_last=key_last, ndim=ndim)

    # -- binary operations -----------------------------------------------------------------------

    def binary(
        self,
        left_node: cst.BaseExpression,
        operator: cst.CSTNode,
        right_node: cst.BaseExpression,
        node: cst.CSTNode,
    ) -> _Any | None:
        left = self.ev(left_node)
        right = self.ev(right_node)
        origin = Origin(node, "")
        if isinstance(operator, (cst.MatrixMultiply, cst.MatrixMultiplyAssign)):
            if isinstance(right, _Transposed):
                return Scores(origin, scaled=isinstance(left, _ScaledTensor))
            return None
        if isinstance(operator, (cst.Add, cst.AddAssign)):
            return self.add(left, right, left_node, right_node, node)
        if isinstance(operator, (cst.Multiply, cst.MultiplyAssign)):
            for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
                if isinstance(this, Scores):
                    return self.scaled(this, other, other_node, divide=False)
                if (
                    isinstance(this, Weights)
                    and this.unmasked
                    and isinstance(other, Mask)
                    and not other.by_name
                ):
                    return self.after_softmax(this, node, other)
                if isinstance(this, Mask) and isinstance(other, Const):
                    return self.penalty(this, other, node)
            if isinstance(left, Scale) or isinstance(right, Scale):
                scale = left if isinstance(left, Scale) else right
                return scale
            return _ScaledTensor(origin)
        if isinstance(operator, (cst.Divide, cst.DivideAssign)):
            if isinstance(left, Scores):
                return self.scaled(left, right, right_node, divide=True)
            if isinstance(left, Weights):
                if left.masked_at is not None:
                    self.pending.pop(id(left.masked_at.node), None)
                return Weights(left.origin, unmasked=left.unmasked)
            if isinstance(left, Const) and isinstance(right, Scale):
                return Scale(origin, right.width, inverted=not right.inverted)
            return _ScaledTensor(origin)
        if isinstance(operator, (cst.Subtract, cst.SubtractAssign)):
            if (
                isinstance(left, Const)
                and left.value == 1.0
                and isinstance(right, Mask)
                and right.kind == "mask"
            ):
                return right.flipped(origin).but(dtype=right.dtype or "float")
            return None
        if isinstance(operator, cst.Power) and isinstance(right, Const):
            names = _names_in(left_node)
            width = None if _has_division(left_node) else scale_from_name(names)
            if right.value == -0.5:
                return Scale(origin, width, inverted=False)
            if right.value == 0.5:
                return Scale(origin, width, inverted=True)
            return None
        if isinstance(operator, (cst.BitAnd, cst.BitOr, cst.BitAndAssign, cst.BitOrAssign)):
            return self.combine(left, right, node)
        return None

    def combine(self, left: _Any | None, right: _Any | None, node: cst.CSTNode) -> _Any | None:
        if isinstance(left, Mask) and isinstance(right, Mask):
            meaning = left.meaning if left.meaning == right.meaning else None
            query_and_key = None
            if (
                left.key_padding
                and right.key_padding
                and not left.by_name
                and left.key_last != right.key_last
            ):
                query_and_key = Origin(node, "")
            # a padding mask on the query axis combined with a mask of no padding (a causal
            # triangle) keeps its wrong axis
            moved = [
                term
                for term, other in ((left, right), (right, left))
                if term.moved_at is not None and not term.key_last and not other.key_padding
            ]
            return Mask(
                "mask",
                Origin(node, ""),
                dtype="bool",
                meaning=meaning,
                by_name=left.by_name and right.by_name,
                query_and_key=query_and_key,
                key_padding=bool(moved),
                key_last=not moved,
                moved_at=moved[0].moved_at if moved else None,
            )
        return None

    def add(
        self,
        left: _Any | None,
        right: _Any | None,
        left_node: cst.BaseExpression,
        right_node: cst.BaseExpression,
        node: cst.CSTNode,
    ) -> _Any | None:
        if isinstance(left, Mask) and isinstance(right, Mask):
            if left.kind == right.kind == "additive":
                if left.finfo_terms and right.finfo_terms and not _frees_the_diagonal(left, right):
                    self.hit(
                        "AM204",
                        node,
                        "each term may be torch.finfo(dtype).min; their sum overflows to -inf",
                        [
                            ("a torch.finfo(...).min penalty", left.origin),
                            ("a torch.finfo(...).min penalty", right.origin),
                        ],
                    )
                return left.but(finfo_terms=left.finfo_terms + right.finfo_terms)
            return None
        for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
            if isinstance(this, Scores):
                if isinstance(other, Mask):
                    self.additive_sink(other, other_node, "scores + mask adds the mask's values")
                return dataclasses.replace(this, masked=True)
        return None

    def penalty(self, mask: Mask, const: Const, node: cst.CSTNode) -> _Any | None:
        if const.value > PENALTY and not const.finfo:
            return None
        if mask.kind == "additive":
            return None
        self.penalty_sink(mask, node, f"`{self.code(node)}` puts the penalty where the mask is 1")
        return Mask("additive", Origin(node, ""), dtype="float", finfo_terms=int(const.finfo))

    def after_softmax(self, weights: Weights, node: cst.CSTNode, mask: Mask | None) -> Weights:
        found = self.hit(
            "AM401",
            node,
            "a mask belongs on the scores, before the softmax; after it a row no longer sums to 1",
            [("attention weights (softmax output)", weights.origin)]
            + ([(mask.says(), mask.origin)] if mask is not None else []),
        )
        self.hits.remove(found)
        self.pending[id(node)] = found
        return Weights(weights.origin, masked_at=Origin(node, ""), unmasked=True)

    # -- calls -----------------------------------------------------------------------------------

    def call(self, node: cst.Call) -> _Any | None:
        func = node.func
        qualified = self.qualname(func)
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        receiver: _Any | None = None
        if method is not None and qualified is None and isinstance(func, cst.Attribute):
            receiver = self.ev(func.value)
        elif qualified is None:
            receiver = self.ev(func)
        values = [self.ev(arg.value) for arg in node.args]
        origin = Origin(node, "")
        short = qualified.rsplit(".", 1)[-1] if qualified else None

        if qualified is None and (
            isinstance(func, cst.Name)
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
            )
        ):
            callee = self.ev(func)
            if isinstance(callee, Module):
                return self.module_call(callee, node, values)
            called = func.value if isinstance(func, cst.Name) else None
            if isinstance(func, cst.Attribute):
                called = func.attr.value
            helper = self.defs.get(called) if called is not None else None
            if callee is None and helper is not None:
                read, value = self.specialise(
                    helper, node, values, method=isinstance(func, cst.Attribute)
                )
                return value if read else self.summary(helper)
        if method == "register_buffer" and len(node.args) >= 2:
            name = node.args[0].value
            if isinstance(name, cst.SimpleString) and values[1] is not None:
                self.attributes[-1][str(name.evaluated_value)] = values[1]
            return None
        if qualified in SOFTMAX or (method == "softmax" and qualified is None):
            subject = receiver if method == "softmax" and qualified is None else None
            offset = 0 if subject is not None else 1
            if subject is None and values:
                subject = values[0]
            return self.softmax(node, subject, offset)
        if qualified == SDPA:
            self.sdpa(node, values)
            return None
        if qualified in OWN_SDPA:
            arg, value = _argument(node, values, 3, "allowed")
            # a mask that is not Boolean raises MaskDtypeError there: no silent mistake to report
            if arg is not None and isinstance(value, Mask) and value.dtype in ("bool", None):
                self.allowed_sink(value, arg, "attention.scaled_dot_product_attention(allowed=…)")
            return None
        if qualified == MHA_FORWARD:
            for keyword in ("key_padding_mask", "attn_mask"):
                arg, value = _argument(node, values, None, keyword)
                if arg is not None and isinstance(value, Mask):
                    self.forbidden_sink(value, arg, f"F.multi_head_attention_forward({keyword}=…)")
            return None
        if short == "Softmax" and qualified and qualified.startswith("torch.nn"):
            arg, _ = _argument(node, values, 0, "dim")
            dim = _int_literal(arg.value) if arg is not None else None
            return Module("softmax", False, origin, dim=dim, implicit=arg is None)
        if short in MODULES and qualified and qualified.startswith("torch.nn"):
            return self.construct(MODULES[short], node, values)
        if qualified == "torch.nn.Embedding":
            return Module("embedding", False, origin)
        if method in ("masked_fill", "masked_fill_") or qualified == "torch.masked_fill":
            if qualified == "torch.masked_fill":
                receiver, values = (values[0] if values else None), values[1:]
                args = list(node.args[1:])
            else:
                args = list(node.args)
            return self.masked_fill(node, receiver, args, values, func)
        if short in ("triu", "tril") or method in ("triu", "tril", "triu_", "tril_"):
            return self.triangle(node, qualified, receiver, values)
        if method in ("float", "double") and not node.args and not isinstance(receiver, Mask):
            # float32 (or float64) by construction: a fill of -1e9 fits there
            return _Float32(origin)
        if method in FLOAT_METHODS and isinstance(receiver, Scores):
            return receiver
        if method in FLOAT_METHODS or method == "type_as":
            return _retype(receiver, "float", origin)
        if method in INT_METHODS:
            return _retype(receiver, "int", origin)
        if method == "bool":
            return _retype(receiver, "bool", origin)
        if method in ("to", "type") and isinstance(receiver, Mask):
            return self.convert(receiver, node, values)
        if method == "logical_not" or qualified == "torch.logical_not":
            subject = receiver if method == "logical_not" else (values[0] if values else None)
            return self.invert(subject, node) if isinstance(subject, Mask) else None
        if method in ("unsqueeze", "unsqueeze_") and isinstance(receiver, Mask):
            axis = _int_literal(node.args[0].value) if node.args else None
            last = axis == -1 or (receiver.ndim is not None and axis == receiver.ndim)
            ndim = receiver.ndim + 1 if receiver.ndim is not None else None
            moved = receiver.moved_at
            if last and receiver.key_last and receiver.key_padding:
                moved = origin
            return receiver.but(key_last=receiver.key_last and not last, ndim=ndim, moved_at=moved)
        if method in KEEP_METHODS and isinstance(receiver, (Mask, Scores)):
            return receiver
        if method in ("view", "reshape") and isinstance(receiver, Mask):
            return receiver.but(key_padding=False, ndim=len(node.args) or None)
        if method in ("view", "reshape") and isinstance(receiver, Scores):
            # a new shape: as many axes as sizes given (a single argument may be a whole shape)
            ndim = len(node.args) if len(node.args) >= 2 else None
            return dataclasses.replace(receiver, ndim=ndim)
        if method == "contiguous" and isinstance(receiver, (Scores, _Transposed)):
            return receiver
        if method == "repeat" and isinstance(receiver, Mask):
            return self.repeat(receiver, node)
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
        if method in ("eq", "ne") and node.args:
            pad = _last_name(node.args[0].value)
            if pad is not None and "pad" in pad.lower():
                polarity: Meaning = "forbidden" if method == "eq" else "allowed"
                return Mask("mask", origin, "bool", polarity, key_padding=True, ndim=2)
            return None
        if method in SCALING_METHODS and node.args:
            if isinstance(receiver, Scores):
                divide = method.startswith("div")
                return self.scaled(receiver, values[0], node.args[0].value, divide=divide)
            if not isinstance(receiver, Mask):
                return _ScaledTensor(origin)
        if method in ("transpose", "permute", "swapaxes"):
            return _Transposed(origin)
        if short in ("matmul", "bmm") and qualified and qualified.startswith("torch"):
            if len(values) >= 2 and isinstance(values[1], _Transposed):
                return Scores(
                    origin,
                    scaled=isinstance(values[0], _ScaledTensor),
                    ndim=3 if short == "bmm" else None,  # bmm: [B, L, S] exactly
                )
            return None
        if qualified == "torch.einsum":
            return _einsum(node, values, origin)
        if (
            short in ("cat", "concat", "concatenate")
            and qualified
            and qualified.startswith("torch")
        ):
            first = node.args[0].value if node.args else None
            if isinstance(first, (cst.List, cst.Tuple)) and len(first.elements) >= 2:
                return KeyCat(origin)
            return None
        if qualified == "torch.where" and len(values) == 3:
            return self.where(node, values)
        if qualified == "torch.finfo":
            return _Finfo(origin)
        if qualified == "torch.full" and len(values) >= 2 and isinstance(values[1], Const):
            if values[1].finfo:
                return Mask("additive", origin, dtype="float", finfo_terms=1)
            return None
        if short in CONSTRUCTORS and qualified and qualified.startswith("torch"):
            return _Created(origin, self.created_dtype(node, like=short.endswith("_like")))
        if short in ("sqrt",) and qualified in ("math.sqrt", "numpy.sqrt", "torch.sqrt"):
            names = _names_in(node.args[0].value) if node.args else []
            width = (
                None if node.args and _has_division(node.args[0].value) else scale_from_name(names)
            )
            argument = node.args[0].value if node.args else None
            # sqrt(1 / (3 * d)) is already the reciprocal: a factor, not a divisor
            reciprocal = (
                isinstance(argument, cst.BinaryOperation)
                and isinstance(argument.operator, cst.Divide)
                and isinstance(argument.left, (cst.Integer, cst.Float))
                and float(argument.left.evaluated_value) == 1.0
            )
            return Scale(origin, width, inverted=not reciprocal)
        if qualified == "builtins.float" or (isinstance(func, cst.Name) and func.value == "float"):
            if node.args and isinstance(node.args[0].value, cst.SimpleString):
                text = str(node.args[0].value.evaluated_value).strip().lower()
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
        if (
            short == "allowed_to_hf_attention_mask"
            and qualified
            and qualified.startswith("attention")
        ):
            return Mask("mask", origin, "int", "allowed", key_padding=True, ndim=2, hf=True)
        if short in ADDITIVE_CONVENTIONS and qualified and qualified.startswith("attention"):
            return Mask("additive", origin, dtype="float")
        if short == "attention_scores" and qualified and qualified.startswith("attention"):
            return Scores(origin, scaled=True)
        if (
            short in ("create_block_mask", "create_mask")
            and qualified
            and ("flex_attention" in qualified)
        ):
            if node.args:
                self.mask_mod(node.args[0].value)
            return None
        if isinstance(receiver, Module) and receiver.kind == "embedding":
            return Embedded(origin)
        return None

    def construct(self, kind: str, node: cst.Call, values: list[_Any | None]) -> Module:
        batch_first = False
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "batch_first":
                batch_first = _is_true(arg.value)
        if kind in ("encoder", "decoder") and values and isinstance(values[0], Module):
            batch_first = values[0].batch_first
        return Module(kind, batch_first, Origin(node, ""))

    def module_call(self, module: Module, node: cst.Call, values: list[_Any | None]) -> _Any | None:
        if module.kind == "embedding":
            return Embedded(Origin(node, "an nn.Embedding of token ids: [B, T, E]"))
        if module.kind == "softmax":
            subject = values[0] if values else None
            if not isinstance(subject, Scores):
                return Weights(origin=Origin(node, "")) if subject is None else None
            at = module.origin.node
            dim = module.dim if module.dim is not None or module.implicit else _NO_DIM
            return self.softmax(node, subject, 0, dim=(dim, at))
        masks = MODULE_MASKS.get(module.kind, {})
        api = {"mha": "nn.MultiheadAttention"}.get(module.kind, f"nn.{_class_of(module.kind)}")
        for keyword, position in masks.items():
            arg, value = _argument(node, values, position, keyword)
            if _padding_name_as_attn_mask(keyword, value):
                continue
            if arg is not None and isinstance(value, Mask):
                self.forbidden_sink(value, arg, f"{api}({keyword}=…)")
        if node.args and node.args[0].keyword is None:
            first = values[0]
            query = node.args[0].value
            if isinstance(first, Embedded) and not module.batch_first:
                self.hit(
                    "AM801",
                    query,
                    f"{api} was built without batch_first=True (line of construction below), "
                    "so it reads its input as [T, B, E]",
                    [
                        ("batch first, [B, T, E]", first.origin),
                        (f"{api} with batch_first=False", module.origin),
                    ],
                )
            elif (
                module.batch_first
                and isinstance(query, cst.Call)
                and isinstance(query.func, cst.Attribute)
                and query.func.attr.value == "transpose"
                and [_int_literal(a.value) for a in query.args] in ([0, 1], [1, 0])
            ):
                self.hit(
                    "AM801",
                    query,
                    f"{api} was built with batch_first=True and reads [B, T, E]; the input was "
                    "transposed to [T, B, E]",
                    [(f"{api} with batch_first=True", module.origin)],
                )
        return None

    def sdpa(self, node: cst.Call, values: list[_Any | None]) -> None:
        api = "F.scaled_dot_product_attention"
        arg, mask = _argument(node, values, 3, "attn_mask")
        causal_arg, _ = _argument(node, values, 5, "is_causal")
        causal = causal_arg is not None and _is_true(causal_arg.value)
        if arg is not None and not _is_none(arg.value):
            if isinstance(mask, Mask):
                self.allowed_sink(mask, arg, f"{api}(attn_mask=…)")
            if causal and causal_arg is not None:
                self.hit(
                    "AM301",
                    causal_arg,
                    f"{api} refuses or ignores attn_mask with is_causal=True, depending on the "
                    "release and backend: pass one of them (fold the causal mask into attn_mask)",
                )
        if causal and causal_arg is not None:
            query, key = [*values, None, None][:2]
            if isinstance(key, KeyCat) and not isinstance(query, KeyCat):
                self.hit(
                    "AM302",
                    causal_arg,
                    "is_causal=True aligns the triangle to the top left: with fewer queries than "
                    "keys (L < S, a decode step) query i sees keys 0..i only",
                    [("keys with a cache prepended: S > L", key.origin)],
                )
        scale_arg, scale = _argument(node, values, 6, "scale")
        if scale_arg is not None:
            self.scale_check(scale, scale_arg.value, divide=False)

    def softmax(
        self,
        node: cst.Call,
        subject: _Any | None,
        offset: int,
        dim: tuple[int | None, cst.CSTNode] | None = None,
    ) -> _Any | None:
        """A softmax of ``subject``; ``dim``: an ``nn.Softmax``'s axis and where it was built."""
        if not isinstance(subject, Scores):
            return Weights(Origin(node, "")) if subject is None else None
        for pending in subject.pending:
            if isinstance(pending, Hit) and pending not in self.hits:
                self.hits.append(pending)
        if dim is None:
            dim_arg = None
            for index, arg in enumerate(node.args):
                if (arg.keyword is not None and arg.keyword.value == "dim") or (
                    arg.keyword is None and index == offset
                ):
                    dim_arg = arg
            at: cst.CSTNode = dim_arg if dim_arg is not None else node
            axis = _int_literal(dim_arg.value) if dim_arg is not None else None
            implicit = dim_arg is None
        else:
            axis, at = dim
            implicit = axis is None
            axis = None if axis == _NO_DIM else axis
        self.axis_check(subject, axis, at, implicit=implicit)
        if (
            not subject.scaled
            # without heads, unscaled dot-product scores are a design (Luong's attention)
            and self.multi_head()
            and not self.names_a_scale()
            and not any(word in self.enclosing_text().lower() for word in SCALE_WORDS)
        ):
            self.hit(
                "AM501",
                node,
                "scores are divided by √(head size) before the softmax (SDPA's default scale)",
                [("unscaled scores q @ kᵀ", subject.origin)],
            )
        return Weights(Origin(node, "softmax"), unmasked=not subject.masked)

    def axis_check(
        self, subject: Scores, dim: int | None, at: cst.CSTNode, *, implicit: bool
    ) -> None:
        """AM402: a softmax over an axis other than the scores' last (the keys)."""
        if implicit and subject.ndim is not None:
            # torch's deprecated implicit choice: dim 0 for 0-, 1- and 3-D input, else dim 1
            dim = 0 if subject.ndim in (0, 1, 3) else 1
            if dim != subject.ndim - 1:
                self.hit(
                    "AM402",
                    at,
                    f"a softmax without dim takes dim={dim} of these {subject.ndim}-D scores; the "
                    "key axis of q @ kᵀ is the last one (dim=-1)",
                    [(f"scores [..., L, S], {subject.ndim}-D", subject.origin)],
                )
            return
        if dim is None:
            return
        wrong = dim < -1 or dim == 0
        if subject.ndim is not None and dim >= 0:
            wrong = dim != subject.ndim - 1
        if wrong:
            self.hit(
                "AM402",
                at,
                "the key axis of q @ kᵀ is the last one (dim=-1): each query's weights over "
                "the keys sum to 1",
                [("scores [..., L, S]", subject.origin)],
            )

    def enclosing_text(self) -> str:
        """The source of the innermost class, else function, else module being read."""
        node: cst.CSTNode = (
            self.classes[-1]
            if self.classes
            else self.functions[-1]
            if self.functions
            else self.module
        )
        key = id(node)
        if key not in self.texts:
            self.texts[key] = self.code(node)
        return self.texts[key]

    def multi_head(self) -> bool:
        """Whether the code around names a head count: a scale from the width is then wrong."""
        return HEAD_COUNT.search(self.enclosing_text()) is not None

    def names_a_scale(self) -> bool:
        function = self.functions[-1] if self.functions else None
        if function is None:
            return False
        key = id(function)
        if key not in self.scaled_functions:
            text = self.code(function).lower()
            self.scaled_functions[key] = any(word in text for word in SCALE_WORDS)
        return self.scaled_functions[key]

    def scaled(
        self, scores: Scores, scale: _Any | None, node: cst.CSTNode, *, divide: bool
    ) -> Scores:
        """Scores times (or over) a scale; a finding about the scale waits for a softmax."""
        before = len(self.hits)
        self.scale_check(scale, node, divide=divide)
        found = tuple(self.hits[before:])
        del self.hits[before:]
        return dataclasses.replace(scores, scaled=True, pending=scores.pending + found)

    def scale_check(self, scale: _Any | None, node: cst.CSTNode, *, divide: bool) -> None:
        if not isinstance(scale, Scale):
            return
        target = node
        if scale.inverted != divide:
            how = "multiplies the scores by" if scale.inverted else "divides the scores by"
            self.hit(
                "AM503",
                target,
                f"the scale is 1/√(head size); this {how} the wrong power of it",
                [("√d" if scale.inverted else "1/√d", scale.origin)],
            )
        elif scale.width is not None and self.multi_head():
            self.hit(
                "AM502",
                target,
                "the scale is 1/√(head size) = 1/√(d_model / num_heads), not the model width or "
                "the head count",
                [(f"built from `{scale.width}`", scale.origin)],
            )

    def masked_fill(
        self,
        node: cst.Call,
        target: _Any | None,
        args: list[cst.Arg],
        values: list[_Any | None],
        func: cst.BaseExpression,
    ) -> _Any | None:
        mask = values[0] if values else None
        fill = values[1] if len(values) >= 2 else None
        if isinstance(target, Weights):
            if not target.unmasked:
                # the scores may have been masked before the softmax: zeroing the weights of
                # fully masked rows after it is a guard, not a second mask
                return target
            return self.after_softmax(target, node, mask if isinstance(mask, Mask) else None)
        if not isinstance(fill, Const):
            return _masked(target)
        fill_arg = args[1]
        before = len(self.hits)
        result: _Any | None = None
        if fill.value <= PENALTY or fill.finfo:
            if (
                abs(fill.value) > FLOAT16_MAX
                and fill.value != float("-inf")
                and not fill.finfo
                and not _float32(func)
                and not isinstance(target, _Float32)
                and self.attention_context(target, mask, node)
            ):
                self.hit(
                    "AM202",
                    fill_arg,
                    "masked_fill converts the fill to the tensor's dtype: float16's largest "
                    "magnitude is 65504, so this fill raises there (or overflows to -inf)",
                    fix=self.finfo_fix(func, target),
                )
            if isinstance(mask, Mask):
                self.penalty_sink(mask, args[0], "masked_fill(mask, -inf) masks where True")
            if not isinstance(target, Scores):
                return Mask(
                    "additive", Origin(node, ""), dtype="float", finfo_terms=int(fill.finfo)
                )
        elif isinstance(target, Scores) and fill.value >= NOT_ZEROING:
            self.hit(
                "AM203",
                fill_arg,
                "a masked score must become -inf (or finfo.min) so its weight is 0; this fill "
                "leaves the masked keys a weight comparable to the others",
            )
        if isinstance(target, Scores):
            # a fill of scores is about attention only if a softmax reads them
            found = tuple(self.hits[before:])
            del self.hits[before:]
            return dataclasses.replace(target, masked=True, pending=target.pending + found)
        return result

    def where(self, node: cst.Call, values: list[_Any | None]) -> _Any | None:
        """``torch.where(mask, scores, -1e9)``: a Python number takes the tensor's dtype."""
        condition, *branches = values
        for arg, value in zip(node.args[1:], branches, strict=True):
            other = branches[1] if value is branches[0] else branches[0]
            if (
                isinstance(value, Const)
                and _overflows_float16(value)
                # two Python numbers give float32, where the value fits
                and not isinstance(other, Const)
                and (isinstance(condition, Mask) or isinstance(other, (Scores, Mask)))
            ):
                self.hit(
                    "AM202",
                    arg.value,
                    "torch.where gives a Python number the other tensor's dtype: float16's "
                    "largest magnitude is 65504, so this value becomes -inf there",
                )
        return None

    def index_fill(
        self, target: cst.Subscript, value: _Any | None, value_node: cst.BaseExpression
    ) -> None:
        """``X[~mask] = -1e6``: the same conversion to X's dtype as masked_fill's."""
        if not isinstance(value, Const) or len(target.slice) != 1:
            return
        index = target.slice[0].slice
        if not isinstance(index, cst.Index):
            return
        where = self.ev(index.value)
        boolean = isinstance(where, Mask) or isinstance(index.value, cst.Comparison)
        if isinstance(index.value, cst.UnaryOperation) and isinstance(
            index.value.operator, cst.BitInvert
        ):
            boolean = True
        if boolean and _overflows_float16(value):
            self.hit(
                "AM202",
                value_node,
                "an index assignment converts the value to the tensor's dtype: float16's largest "
                "magnitude is 65504, so this value becomes -inf there",
            )

    def attention_context(self, target: _Any | None, mask: _Any | None, node: cst.Call) -> bool:
        """Whether a fill is of attention scores or a mask, as far as the code or names show."""
        if isinstance(target, (Scores, Mask)) or isinstance(mask, (Mask, Scores)):
            return True
        parts: list[cst.CSTNode] = [arg.value for arg in node.args]
        if isinstance(node.func, cst.Attribute):
            parts.append(node.func.value)
        words = " ".join(name for part in parts for name in _names_in(part)).lower()
        return any(word in words for word in ATTENTION_WORDS)

    def finfo_fix(self, func: cst.BaseExpression, target: _Any | None) -> str | None:
        torch = next((local for local, name in self.imports.items() if name == "torch"), None)
        if torch is None or not isinstance(func, cst.Attribute):
            return None
        if not isinstance(func.value, (cst.Name, cst.Attribute)):
            return None
        return f"{torch}.finfo({self.code(func.value)}.dtype).min"

    def triangle(
        self,
        node: cst.Call,
        qualified: str | None,
        receiver: _Any | None,
        values: list[_Any | None],
    ) -> _Any | None:
        func = node.func
        lower = (qualified or "").endswith("tril") or (
            isinstance(func, cst.Attribute) and func.attr.value.startswith("tril")
        )
        args = list(node.args)
        source = receiver
        if qualified is not None:
            source = values[0] if values else None
            args = args[1:]
        diagonal: int | None = 0
        for index, arg in enumerate(args):
            if (arg.keyword is None and index == 0) or (
                arg.keyword is not None and arg.keyword.value == "diagonal"
            ):
                diagonal = _int_literal(arg.value)
        if diagonal is None:
            return None
        dtype = source.dtype if isinstance(source, _Created) else None
        if "bool" in self.code(node):
            dtype = "bool"
        triangle = Triangle(lower=lower, diagonal=diagonal)
        name = "tril" if lower else "triu"
        if isinstance(source, Mask) and source.kind == "additive":
            return source.but(
                true_set=triangle, origin=Origin(node, ""), triangle_at=Origin(node, "")
            )
        origin = Origin(node, f"{name}(…, diagonal={diagonal})")
        return Mask("mask", origin, dtype=dtype, true_set=triangle, triangle_at=origin)

    def created_dtype(self, node: cst.Call, *, like: bool) -> Dtype | None:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                text = self.code(arg.value)
                if "bool" in text:
                    return "bool"
                if any(word in text for word in ("long", "int", "uint8")):
                    return "int"
                return "float" if "float" in text or "half" in text else None
        return None if like else "float"

    def convert(self, mask: Mask, node: cst.Call, values: list[_Any | None]) -> _Any | None:
        text = " ".join(self.code(arg.value) for arg in node.args)
        if "bool" in text:
            return _retype(mask, "bool", Origin(node, ""))
        if any(word in text for word in ("float", "half", "bfloat16", "double", "dtype")):
            return _retype(mask, "float", Origin(node, ""))
        if any(word in text for word in ("long", "int", "uint8")):
            return _retype(mask, "int", Origin(node, ""))
        return mask

    def repeat(self, mask: Mask, node: cst.Call) -> Mask:
        literals = [_int_literal(arg.value) for arg in node.args]
        if mask.ndim == 3 and len(literals) == 3 and literals[0] != 1 and literals[1:] == [1, 1]:
            return mask.but(repeated=Origin(node, ""))
        return mask

    def mask_mod(self, node: cst.BaseExpression) -> None:
        function: cst.FunctionDef | cst.Lambda | None = None
        if isinstance(node, cst.Lambda):
            function = node
        elif isinstance(node, cst.Name):
            function = self.defs.get(node.value)
        if function is None:
            return
        params = [param.name.value for param in function.params.params]
        if len(params) != 4:
            return
        body: cst.BaseExpression | None = None
        if isinstance(function, cst.Lambda):
            body = function.body
        else:
            for statement in _body(function.body):
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        if isinstance(small, cst.Return) and small.value is not None:
                            body = small.value
        if not isinstance(body, cst.Comparison) or len(body.comparisons) != 1:
            return
        left, right = body.left, body.comparisons[0].comparator
        if not (isinstance(left, cst.Name) and isinstance(right, cst.Name)):
            return
        q, kv = params[2], params[3]
        operator = body.comparisons[0].operator
        order = {
            cst.GreaterThanEqual: Triangle(True, 0),
            cst.GreaterThan: Triangle(True, -1),
            cst.LessThanEqual: Triangle(False, 0),
            cst.LessThan: Triangle(False, 1),
        }
        found = order.get(type(operator))
        if found is None:
            return
        if (left.value, right.value) == (kv, q):
            found = {
                Triangle(True, 0): Triangle(False, 0),
                Triangle(True, -1): Triangle(False, 1),
                Triangle(False, 0): Triangle(True, 0),
                Triangle(False, 1): Triangle(True, -1),
            }[found]
        elif (left.value, right.value) != (q, kv):
            return
        mask = Mask("mask", Origin(body, "the mask_mod's return value"), "bool", true_set=found)
        self.allowed_sink(mask, body, "flex_attention's mask_mod (True = may attend)")

    # -- sinks -----------------------------------------------------------------------------------

    def fact(self, mask: Mask) -> tuple[str, Origin]:
        return (mask.says(), mask.origin)

    def triangle_check(
        self, allowed: Triangle, mask: Mask, node: cst.CSTNode, reads: str, flip_code: str
    ) -> None:
        if allowed == CAUSAL:
            return
        if allowed == CAUSAL.complement():
            self.hit(
                flip_code,
                node,
                f"{reads}; a causal mask allows the past, {CAUSAL.describe()}",
                [self.fact(mask)],
            )
        else:
            if mask.triangle_at is not None and mask.triangle_at.node is not node:
                # neither polarity makes this triangle causal: the finding goes where it is
                # built, which is what needs changing
                sink = node.value if isinstance(node, cst.Arg) else node
                reads = f"{reads} (`{_short(self.code(sink))}`)"
                node = mask.triangle_at.node
            self.hit(
                "AM303",
                node,
                f"{reads}; so this mask allows {allowed.describe()[5:]}, not the causal "
                f"{CAUSAL.describe()[5:]}",
                [self.fact(mask)],
            )

    def allowed_sink(self, mask: Mask, node: cst.CSTNode, api: str) -> None:
        reads = f"{api} reads a Boolean mask as True = may attend"
        if mask.kind == "additive":
            return
        if mask.dtype == "float":
            self.additive_sink(mask, node, f"{api} adds a floating-point mask to the scores")
            return
        if mask.dtype == "int":
            return
        if mask.true_set is not None:
            self.triangle_check(mask.true_set, mask, node, reads, "AM101")
            return
        if mask.meaning == "forbidden":
            self.hit("AM105" if mask.by_name else "AM101", node, reads, [self.fact(mask)])
            return
        self.layout_check(mask, node, api)

    def forbidden_sink(self, mask: Mask, node: cst.CSTNode, api: str) -> None:
        reads = f"{api} reads a Boolean mask as True = masked out"
        if mask.repeated is not None:
            where, at = node, api
            if mask.repeated.node is not node:
                # the repeat is what needs changing (to repeat_interleave)
                sink = node.value if isinstance(node, cst.Arg) else node
                at = f"{api} (`{_short(self.code(sink))}`)"
                where = mask.repeated.node
            self.hit(
                "AM802",
                where,
                f"{at} reads a 3-D attn_mask as [B·H, L, S], entry b·H + h; repeat(H, 1, 1) "
                "lays it out h·B + b, so heads get other batch items' masks",
                [("a [B, L, S] mask tiled with repeat", mask.repeated)],
            )
        if mask.kind == "additive":
            return
        if mask.dtype == "float" and not mask.hf:
            self.additive_sink(mask, node, f"{api} adds a floating-point mask to the scores")
            return
        self.polarity_forbidden(mask, node, reads, hf_code="AM103")
        self.layout_check(mask, node, api)

    def penalty_sink(self, mask: Mask, node: cst.CSTNode, reads: str) -> None:
        if mask.dtype == "float" and mask.hf and not mask.by_name:
            return
        if mask.by_name and mask.hf and mask.dtype == "int" and "masked_fill" in reads:
            # masked_fill takes Boolean masks only (an integer one raises): what is passed as it
            # is here is not the integer mask its name suggests
            return
        self.polarity_forbidden(mask, node, reads, hf_code="AM104")
        self.layout_check(mask, node, reads)

    def polarity_forbidden(self, mask: Mask, node: cst.CSTNode, reads: str, hf_code: str) -> None:
        if mask.true_set is not None:
            self.triangle_check(mask.true_set.complement(), mask, node, reads, "AM102")
            return
        if mask.meaning != "allowed":
            return
        if mask.hf and mask.by_name:
            self.hit(hf_code, node, reads, [self.fact(mask)])
        elif mask.by_name:
            self.hit("AM105", node, reads, [self.fact(mask)])
        else:
            self.hit("AM102", node, reads, [self.fact(mask)])

    def additive_sink(self, mask: Mask, node: cst.CSTNode, reads: str) -> None:
        if mask.kind == "additive":
            return
        # an HF `attention_mask` added as it is: inside attention layers that name usually holds
        # the already expanded additive mask, so the name proves nothing here
        # an unknown dtype proves nothing: `x.new([-inf]).triu()` is a triangle of penalties
        if not mask.by_name and mask.dtype in ("float", "bool"):
            self.hit(
                "AM201",
                node,
                f"{reads}: a 0/1 mask adds 1.0 or 0.0, it forbids nothing",
                [self.fact(mask)],
            )

    def layout_check(self, mask: Mask, node: cst.CSTNode, api: str) -> None:
        if mask.key_padding and not mask.key_last and not mask.by_name:
            if mask.moved_at is not None and mask.moved_at.node is not node:
                # the unsqueeze that put the keys on the query axis is what needs changing
                sink = node.value if isinstance(node, cst.Arg) else node
                api = f"{api} (`{_short(self.code(sink))}`)"
                node = mask.moved_at.node
            self.hit(
                "AM601",
                node,
                f"{api} broadcasts a padding mask over the queries only when its key axis is "
                "last ([B, 1, 1, S] or [B, 1, S]); here it lies on the query axis, so padded "
                "queries' rows have no allowed key",
                [self.fact(mask)],
            )
        elif mask.query_and_key is not None:
            self.hit(
                "AM602",
                node,
                f"{api}: a padded query's row then has no allowed key, whose result is NaN "
                "(softmax, MHA with weights) or zeros (SDPA)",
                [("padding on both the query and the key axis", mask.query_and_key)],
            )


def _frees_the_diagonal(*terms: Mask) -> bool:
    """Whether a term penalises only strictly above (or below) the diagonal: a causal mask.

    Its diagonal stays finite in the sum, so no row becomes all -inf and the softmax stays finite.
    """
    for term in terms:
        penalised = term.true_set
        if penalised is not None and (
            (not penalised.lower and penalised.diagonal >= 1)
            or (penalised.lower and penalised.diagonal <= -1)
        ):
            return True
    return False


def _padding_name_as_attn_mask(keyword: str, value: _Any | None) -> bool:
    """Whether a padding mask by its name goes where an ``attn_mask`` is read.

    A ``[B, S]`` padding mask cannot be an ``attn_mask`` (``[L, S]`` or ``[B·H, L, S]``): where
    it goes contradicts its name.
    """
    return (
        keyword in ("attn_mask", "src_mask", "tgt_mask", "memory_mask", "mask")
        and isinstance(value, Mask)
        and value.by_name
        and value.key_padding
    )


def _guard(test: cst.BaseExpression) -> tuple[cst.Name, str, bool] | None:
    """What an ``if`` test says about a name's dtype, or None.

    ``(name, "bool" | "float", positive)`` for ``name.dtype == torch.bool`` (``is``, ``!=``,
    ``is not``, ``not …``) and ``name.is_floating_point()``.
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _guard(test.expression)
        return None if inner is None else (inner[0], inner[1], not inner[2])
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, right = test.left, test.comparisons[0].comparator
        operator = test.comparisons[0].operator
        if isinstance(right, cst.Attribute) and right.attr.value == "dtype":
            left, right = right, left
        if (
            isinstance(left, cst.Attribute)
            and left.attr.value == "dtype"
            and isinstance(left.value, cst.Name)
            and isinstance(right, cst.Attribute)
            and right.attr.value == "bool"
        ):
            if isinstance(operator, (cst.Equal, cst.Is)):
                return (left.value, "bool", True)
            if isinstance(operator, (cst.NotEqual, cst.IsNot)):
                return (left.value, "bool", False)
        return None
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "is_floating_point"
    ):
        subject = test.func.value
        if not test.args and isinstance(subject, cst.Name):
            return (subject, "float", True)
        if len(test.args) == 1 and isinstance(test.args[0].value, cst.Name):
            return (test.args[0].value, "float", True)
    return None


def _leaves(suite: cst.BaseSuite) -> bool:
    """Whether a block always ends in ``return`` or ``raise``."""
    body = _body(suite)
    if not body:
        return False
    last = body[-1]
    return isinstance(last, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Return, cst.Raise)) for small in last.body
    )


def _parameters(node: cst.FunctionDef) -> dict[str, _Any]:
    params = node.params
    found: dict[str, _Any] = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        text = "" if param.annotation is None else _names_text(param.annotation)
        boolean = "BoolTensor" in text or text.startswith("Bool")
        found[param.name.value] = BOOL_PARAM if boolean else PARAM
    return found


def _names_text(annotation: cst.Annotation) -> str:
    return " ".join(_names_in(annotation.annotation))


def _overflows_float16(const: Const) -> bool:
    return abs(const.value) > FLOAT16_MAX and not math.isinf(const.value) and not const.finfo


def _masked(target: _Any | None) -> _Any | None:
    return dataclasses.replace(target, masked=True) if isinstance(target, Scores) else None


def _float32(func: cst.BaseExpression) -> bool:
    """``x.float().masked_fill(…)``: the tensor filled is float32 (or float64) by construction."""
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Call):
        return False
    inner = func.value.func
    return isinstance(inner, cst.Attribute) and inner.attr.value in ("float", "double")


def _shared(states: list[dict[str, _Any]]) -> dict[str, _Any]:
    """What the states agree on, name by name; a name they disagree on is UNKNOWN.

    Scores stay scores on every path: scaled if scaled on all, masked if masked on any, with
    the pending findings of each.
    """
    joined: dict[str, _Any] = {}
    for name in dict.fromkeys(name for state in states for name in state):
        values = [state.get(name) for state in states]
        first = values[0]
        if all(value is first for value in values):
            if first is not None:
                joined[name] = first
        elif isinstance(first, Mask) and all(
            isinstance(value, Mask) and value.but(origin=first.origin) == first for value in values
        ):
            joined[name] = first
        elif all(isinstance(value, Scores) for value in values):
            scores = [value for value in values if isinstance(value, Scores)]
            pending = tuple(dict.fromkeys(hit for one in scores for hit in one.pending))
            joined[name] = dataclasses.replace(
                scores[0],
                scaled=all(one.scaled for one in scores),
                ndim=scores[0].ndim if all(one.ndim == scores[0].ndim for one in scores) else None,
                masked=any(one.masked for one in scores),
                pending=pending,
            )
        else:
            joined[name] = UNKNOWN
    return joined


def _body(suite: cst.BaseSuite | Sequence[cst.CSTNode]) -> Sequence[cst.CSTNode]:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=suite.body)]
    if isinstance(suite, cst.BaseSuite):
        return []
    return suite


def _class_of(kind: str) -> str:
    return {
        "encoder_layer": "TransformerEncoderLayer",
        "encoder": "TransformerEncoder",
        "decoder_layer": "TransformerDecoderLayer",
        "decoder": "TransformerDecoder",
        "transformer": "Transformer",
    }.get(kind, kind)


def _argument(
    node: cst.Call, values: list[_Any | None], position: int | None, keyword: str
) -> tuple[cst.Arg | None, _Any | None]:
    for index, arg in enumerate(node.args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg, values[index]
        if arg.keyword is None and arg.star == "" and index == position:
            return arg, values[index]
    return None, None


def _retype(value: _Any | None, dtype: str, origin: Origin) -> _Any | None:
    if not isinstance(value, Mask):
        return None
    if value.kind == "additive" and dtype == "bool":
        return Mask(
            "mask",
            origin,
            "bool",
            true_set=value.true_set,
            meaning="forbidden" if value.true_set is None else None,
        )
    return value.but(dtype=dtype) if value.kind == "mask" else value


def _einsum(node: cst.Call, values: list[_Any | None], origin: Origin) -> _Any | None:
    if len(node.args) != 3 or not isinstance(node.args[0].value, cst.SimpleString):
        return None
    equation = str(node.args[0].value.evaluated_value).replace(" ", "")
    if "->" not in equation:
        return None
    inputs, output = equation.split("->")
    parts = inputs.split(",")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    contracted = parts[0][-1]
    last = output.replace(".", "")[-1:] if output.replace(".", "") else ""
    key_last = last in parts[1] and last not in parts[0]
    if parts[1][-1] == contracted and contracted not in output:
        if not key_last:
            return None
        return Scores(
            origin, scaled=isinstance(values[1], _ScaledTensor), ndim=len(output.replace(".", ""))
        )
    return None


def check_source(source: str, path: str = "<string>") -> list[Finding]:
    """Every finding in ``source``, in order of position (parse errors propagate)."""
    if not could_hold_finding(source):
        return []
    module = cst.parse_module(source)
    return check_module(module, path)


def check_module(module: cst.Module, path: str) -> list[Finding]:
    """Every finding in a parsed module."""
    checker = _Checker(module)
    checker.statements(module.body)
    hits = checker.hits + list(checker.pending.values())
    if not hits:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    findings = []
    seen: set[tuple[str, int]] = set()
    for hit in hits:
        if (hit.code, id(hit.node)) in seen:
            continue  # a helper read again with its caller's masks finds it once more
        seen.add((hit.code, id(hit.node)))
        where = positions[hit.node]
        inferred = []
        for says, origin in hit.facts:
            line = positions[origin.node].start.line
            inferred.append(
                f"`{hit.subject}` is {says} (line {line}: `{_short(checker.code(origin.node))}`)"
                if origin.node is not hit.node
                else f"`{hit.subject}` is {says}"
            )
        findings.append(
            Finding(
                path,
                where.start.line,
                where.start.column + 1,
                hit.code,
                hit.subject,
                hit.expects,
                tuple(inferred),
                where.end.line,
                hit.fix,
                hit.node,
            )
        )
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


def _short(code: str, limit: int = 60) -> str:
    one = " ".join(code.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
