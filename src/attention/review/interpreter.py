r"""The checker's abstract interpreter: every expression evaluated to what it is known to be.

Each function body is read in order; every expression is evaluated to a
:mod:`~attention.review.provenance` value (a mask, scores, weights, a constant, a scale …) kept
per name, and every call that consumes a mask, scores or weights is asked about by the rules.
Names are qualified from the file's own imports as the pass meets them (``F.softmax``,
``torch.nn.functional.softmax`` and ``from torch.nn.functional import softmax as sm`` all read as
``torch.nn.functional.softmax``).  Branches join (a name keeps what every path agrees on), dtype
tests narrow, and a helper of the same module is followed into (its return value; its body once
more with the masks its caller passes).  What the pass cannot tell is unknown, and unknown is
silence.

>>> import ast
>>> from attention.review.syntax import Source
>>> source = Source("import torch\nm = torch.tril(torch.ones(4, 4, dtype=torch.bool))\n")
>>> interpreter = Interpreter(source)
>>> interpreter.module(source.tree)
>>> interpreter.globals["m"].says()
'True on and below the diagonal (tril)'
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from attention.review import apis, extended_masks, head_counts, heads, ops
from attention.review.project import MASK_WORDS, Project
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
    Weights,
    mask_from_name,
    meaning_named,
    scale_from_name,
)
from attention.review.roles import (
    _as_dim,
    _features_first,
    _head_size,
    _ids_layout,
    _keys_first,
    _length,
    _parameters,
    _role,
    _second,
    _tokenizer_ids,
    _unwrapped,
)
from attention.review.rules import (
    am1_polarity,
    am2_fills,
    am3_causal,
    am4_softmax,
    am5_scale,
    am6_padding,
    am8_heads,
)
from attention.review.sinks import (
    ADDITIVE_CONVENTIONS,
    ATTENTION_WORDS,
    CONSTRUCTORS,
    CONVENTIONS,
    FLEX_MASK_MAKERS,
    INTEGER_DTYPES,
    MHA_FORWARD,
    MODULE_APIS,
    MODULES,
    NO_DIM,
    NOT_ZEROING,
    OWN_SDPA,
    PADDED_ONES,
    PENALTY,
    SCALE_WORDS,
    SCALING_METHODS,
    SDPA,
    SOFTMAX,
    TANH,
)
from attention.review.syntax import (
    Arg,
    Source,
    _pair_sides,
    _short,
    _whole,
    call_args,
    factors,
    has_division,
    identifiers,
    int_literal,
    is_none,
    is_true,
    last_name,
    names_in,
    string_literal,
)
from attention.review.values import (
    NONE,
    UNKNOWN,
    AnyValue,
    Attended,
    Dim,
    Exp,
    ExpSum,
    Finfo,
    FunctionNode,
    Guard,
    Instance,
    Layers,
    OneMinus,
    Param,
    Partial,
    Positions,
    Relative,
    RowConst,
    ScaledTensor,
    Tensor,
    Transposed,
    TriangleIndex,
    TupleValue,
    Unknown,
    _masked,
    _narrowest_overflowed,
    _overflows_float16,
    _penalise,
    _wide,
    is_zero_one,
    join,
    retype,
)

__all__ = ["Hit", "Interpreter"]


@dataclass(frozen=True)
class Hit:
    """A rule's finding before positions are known: the node, what it is, what it came from."""

    code: str
    node: ast.AST
    subject: str
    expects: str
    facts: tuple[tuple[str, Origin], ...] = ()
    fix: str | None = None
    narrow: str | None = None
    """For a value a dtype cannot hold: the widest dtype that cannot (``"float16"``, or
    ``"bfloat16"`` for a constant beyond bfloat16's range too); the finding stands only where
    the code runs in that dtype or a narrower one."""


class Interpreter:
    """The state of one pass: imports, names per scope, the hits so far."""

    def __init__(
        self, source: Source, project: Project | None = None, path: Path | None = None
    ) -> None:
        self.source = source
        self.project = project
        self.path = path
        self.foreign: dict[str, tuple[str, str, int]] = {}
        self.top_imports: dict[str, str] = {}
        self.fix_candidates: dict[int, tuple[Hit, str]] = {}
        self.imports: dict[str, str] = {}
        self.globals: dict[str, AnyValue] = {}
        self.scopes: list[dict[str, AnyValue]] = [self.globals]
        self.attributes: list[dict[str, AnyValue]] = [{}]
        self.defs: list[dict[str, FunctionNode]] = [{}]
        self.class_defs: dict[str, ast.ClassDef] = {}
        self.class_state: dict[int, tuple[dict[str, AnyValue], dict[str, FunctionNode]]] = {}
        self.methods: list[dict[str, FunctionNode]] = [{}]
        self.own_hits: dict[int, set[tuple[str, int]]] = {}
        self.readings: dict[int, dict[int, list[set[tuple[str, int]]]]] = {}
        self.head_splits: dict[int, bool] = {}
        self.hits: list[Hit] = []
        self.pending: dict[int, Hit] = {}
        self.functions: list[FunctionNode] = []
        self.scaled_functions: dict[int, bool] = {}
        self.classes: list[ast.ClassDef] = []
        self.returns: list[list[AnyValue | None]] = []
        self.summaries: dict[int, AnyValue | None] = {}
        self.aliases: frozenset[str] = frozenset()  # head-count names of this module
        self.converting_read: frozenset[int] | None = None  # see handed_an_additive_mask
        self.assigned_value: ast.AST | None = None  # the value of the assignment being read
        self.summarising = False
        self.specialising = 0
        self.helper_calls: list[tuple[FunctionNode, ast.Call]] = []
        self.texts: dict[int, str] = {}
        self.arguments: dict[int, list[Arg]] = {}
        # scores a softmax read, by id, with the value itself: a value that is kept cannot be
        # freed, so no later value takes its id (CPython 3.13 reuses a freed value's address
        # within a statement, and an unrelated masked_fill_ read as a late mask)
        self.consumed: dict[int, tuple[Scores, Origin]] = {}
        self.heads: dict[int, bool] = {}
        self.loops = 0

    # -- names -----------------------------------------------------------------------------------

    def code(self, node: ast.AST) -> str:
        """The node's source text."""
        return self.source.code(node)

    def args(self, node: ast.Call) -> list[Arg]:
        """The call's arguments in written order (computed once per call)."""
        found = self.arguments.get(id(node))
        if found is None:
            found = self.arguments[id(node)] = call_args(node)
        return found

    def qualname(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for after the file's imports, else None."""
        if isinstance(node, ast.Name):
            return self.imports.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def lookup(self, name: str) -> AnyValue | None:
        """A name's value, innermost scope first."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, target: ast.AST, value: AnyValue | None) -> None:
        """Assign a value to a target: a name, ``self.x``, or each element of a tuple."""
        name = last_name(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if isinstance(value, Mask) and value.by_name and value.meaning is not None and name:
            stated = meaning_named(name)
            if stated is not None and stated != value.meaning:
                # two names disagree (`remove_from_windowed_attention_mask = (attention_mask
                # != 0)`, Longformer's 0 = local attention): neither is evidence any more
                value = value.but(meaning=None)
        if isinstance(target, ast.Name):
            if value is None and target.id not in self.scopes[-1]:
                # a new name for a value the pass does not model: its name is the evidence
                self.scopes[-1].pop(target.id, None)
            else:
                # a name reassigned from what the pass does not model proves nothing any more
                self.scopes[-1][target.id] = UNKNOWN if value is None else value
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            self.attributes[-1][target.attr] = UNKNOWN if value is None else value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values: Sequence[object] = [None] * len(target.elts)
            if isinstance(value, TupleValue) and len(value.values) == len(target.elts):
                values = value.values
            elif (
                isinstance(value, (Tensor, Transposed))
                and value.sizes is not None
                and len(value.sizes) >= 2
                and value.sizes[0].value in (None, len(target.elts))
                and not any(isinstance(element, ast.Starred) for element in target.elts)
            ):
                # `q, k, v = qkv.permute(2, 0, 3, 1, 4)`: each the tensor's slice along axis 0
                part = Tensor(Origin(target, ""), sizes=value.sizes[1:])
                values = [part] * len(target.elts)
            for element, one in zip(target.elts, values, strict=True):
                self.bind(element, one)  # type: ignore[arg-type]
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None)

    def hit(
        self,
        code: str,
        node: ast.AST | Arg,
        expects: str,
        facts: Iterable[tuple[str, Origin]] = (),
        fix: str | None = None,
        overflows: Const | None = None,
    ) -> Hit:
        """Record a finding of rule ``code`` at ``node`` (about ``overflows``, a constant)."""
        if isinstance(node, Arg):
            node = node.value
        narrow = None if overflows is None else _narrowest_overflowed(overflows)
        found = Hit(code, node, self.code(node), expects, tuple(facts), fix, narrow)
        self.hits.append(found)
        return found

    # -- statements ------------------------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        """Read a whole module; its functions are known before the first line is read."""
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.name == "torch" and alias.asname:
                        self.top_imports[alias.asname] = "torch"
                    elif alias.name.split(".")[0] == "torch" and not alias.asname:
                        self.top_imports["torch"] = "torch"  # `import torch.nn` binds torch
        self.defs[0].update(_hoisted(tree.body))
        self.class_defs = {
            statement.name: statement
            for statement in tree.body
            if isinstance(statement, ast.ClassDef)
        }
        self.aliases = head_counts.aliases(tree, self.source.text)
        aliases = head_counts.ALIASES.set(self.aliases)
        try:
            self.statements(tree.body)
            self.drop_contradicted_names(tree)
        finally:
            head_counts.ALIASES.reset(aliases)

    def handed_an_additive_mask(self) -> bool:
        """Whether this function's ``attention_mask`` is what the module made additive.

        Where the module turns the tokenizer's 1/0 mask into an additive one in some function
        (:mod:`~attention.review.extended_masks`) and this is another function, the parameter
        is what that conversion hands down its layers, not the tokenizer's mask its name says.
        """
        if self.converting_read is None:
            self.converting_read = extended_masks.converting(self.source.tree, self.source.text)
        converting = self.converting_read
        return bool(converting) and not (self.functions and id(self.functions[-1]) in converting)

    def drop_contradicted_names(self, tree: ast.Module) -> None:
        """Drop a finding from a name where every caller in the module says otherwise.

        A helper's parameter named ``attention_mask`` is read as the tokenizer's 1/0 mask;
        where every call of that helper in this module (:func:`_call_sites`) hands it a mask
        and the helper, read again with it, does not make that finding, the name is
        contradicted by the code: HF's float mask compared ``== 0``, or a mask inverted at the
        call (``text_encoder_attention_mask=~text_token_mask``).  Kept where any call passes
        no mask (a 1/0 integer tensor agrees with the name), and where the helper is never
        called here.
        """
        named = [hit for hit in self.hits if hit.code in BY_NAME]
        if not named or not self.readings:
            return
        sites = _call_sites(tree)
        dropped: set[int] = set()
        for hit in named:
            for key, readings in self.readings.items():
                function = sites.functions.get(key)
                if (
                    function is None
                    or not _inside(hit.node, function)
                    or sites.calls.get(key) != set(readings)
                ):
                    continue  # some call of it was not read again with what it passes
                if all(
                    (hit.code, id(hit.node)) not in reading
                    for at_call in readings.values()
                    for reading in at_call
                ):
                    dropped.add(id(hit))
        self.hits = [hit for hit in self.hits if id(hit) not in dropped]

    def outline(self, tree: ast.Module) -> None:
        """What another module offers a caller: its imports and functions, nothing run yet."""
        self.defs[0].update(_hoisted(tree.body))
        self.aliases = head_counts.aliases(tree, self.source.text)
        for statement in tree.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.import_statement(statement)

    def function_named(self, name: str, *, method: bool) -> FunctionNode | None:
        """The function a call names: ``self.name`` in the class being read, else ``name``.

        Functions of the module and methods of the class are known wherever they are defined
        (read ahead, as Python resolves them when the call runs); a function's own nested
        functions only after their ``def``.
        """
        if method:
            return self.methods[-1].get(name)
        for scope in reversed(self.defs):
            if name in scope:
                return scope[name]
        return None

    def statements(self, body: Sequence[ast.stmt]) -> None:
        """Read a block, statement by statement."""
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        """Read one statement."""
        self.assigned_value = node.value if isinstance(node, ast.Assign) else None
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], (ast.Tuple, ast.List))
            and isinstance(node.value, (ast.Tuple, ast.List))
            and len(node.targets[0].elts) == len(node.value.elts)
            and not any(isinstance(e, ast.Starred) for e in node.value.elts)
        ):
            # `h, w = q.size(-2), k.size(-2)`: each name gets its own value
            pairs = [
                (t, self.ev(v)) for t, v in zip(node.targets[0].elts, node.value.elts, strict=True)
            ]
            for target, value in pairs:
                self.bind(target, value)
        elif isinstance(node, ast.Assign) and self.unpacked_shape(node):
            pass
        elif isinstance(node, ast.Assign):
            value = self.ev(node.value)
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    self.index_fill(target, value, node.value)
                self.bind(target, value)
        elif isinstance(node, ast.Expr):
            value = self.ev(node.value)
            call = node.value
            if (
                value is not None
                and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr.endswith("_")
                and not call.func.attr.startswith("_")
                and isinstance(call.func.value, ast.Name)
            ):
                # `x.masked_fill_(m, -inf)`: x is what the in-place call made of it
                self.bind(call.func.value, value)
            elif (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr.endswith("_")
            ):
                self.not_zero_one(call.func.value)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                value = self.ev(node.value)
                if self.returns:
                    self.returns[-1].append(value)
        elif isinstance(node, ast.AugAssign):
            self.bind(node.target, self.binary(node.target, node.op, node.value, node))
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.ev(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.defs[-1][node.name] = node
            self.scopes.append(_parameters(node))
            self.functions.append(node)
            self.returns.append([])
            self.defs.append(_hoisted(node.body))
            try:
                self.statements(node.body)
            finally:
                self.scopes.pop()
                self.functions.pop()
                self.returns.pop()
                self.defs.pop()
        elif isinstance(node, ast.ClassDef):
            self.classes.append(node)
            self.attributes.append({})
            self.scopes.append({})
            self.methods.append(_hoisted(node.body))
            try:
                self.statements(node.body)
            finally:
                self.scopes.pop()
                self.class_state[id(node)] = (self.attributes.pop(), self.methods[-1])
                self.classes.pop()
                self.methods.pop()
        elif isinstance(node, ast.If):
            self.if_statement(node)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            iterated = self.ev(node.test if isinstance(node, ast.While) else node.iter)
            if not isinstance(node, ast.While):
                layer = iterated.module if isinstance(iterated, Layers) else None
                self.bind(node.target, layer)
            self.branches([self.block(node.body)], exhaustive=False)
            if self.loops < 2:
                # a second pass sees what the first one left (`k = torch.cat([k, new])`)
                self.loops += 1
                try:
                    self.branches([self.block(node.body)], exhaustive=False)
                finally:
                    self.loops -= 1
            self.statements(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.ev(item.context_expr)
            self.statements(node.body)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            blocks = [node.body, *(handler.body for handler in node.handlers)]
            self.branches([self.block(body) for body in blocks], exhaustive=False)
            self.statements(node.orelse)
            self.statements(node.finalbody)
        elif isinstance(node, ast.Match):
            self.ev(node.subject)
            self.branches([self.block(case.body) for case in node.cases], exhaustive=False)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.import_statement(node)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)

    def unpacked_shape(self, node: ast.Assign) -> bool:
        """``B, T, C = x.shape`` (or ``x.size()``): each name a size of x, and x has 3 axes.

        Of a tensor that is no query or key, the last size is its width (the model's, before
        any split into heads).  Says whether the statement was such an unpacking.
        """
        if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Tuple, ast.List)):
            return False
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            tensor_node = value.value
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "size"
            and not value.args
        ):
            tensor_node = value.func.value
        else:
            return False
        names = node.targets[0].elts
        if any(isinstance(name, ast.Starred) for name in names):
            return False
        tensor = self.ev(tensor_node)
        known = tensor.sizes if isinstance(tensor, Tensor) and tensor.sizes else None
        role = _role(last_name(tensor_node))
        sizes = []
        for index, name in enumerate(names):
            width = index == len(names) - 1 and len(names) >= 3 and role is None
            value_known = known[index].value if known and len(known) == len(names) else None
            dim = Dim(
                Origin(name, f"the size {index} of `{self.code(tensor_node)}`"),
                "width" if width else None,
                value_known,
                read=True,
            )
            sizes.append(dim)
            self.bind(name, dim)
        if (
            isinstance(tensor_node, ast.Name)
            and (tensor is None or isinstance(tensor, Param))
            and mask_from_name(tensor_node.id, tensor_node) is None
        ):
            # the code itself says how many axes x has
            self.bind(tensor_node, Tensor(Origin(tensor_node, ""), sizes=tuple(sizes)))
        return True

    def import_statement(self, node: ast.Import | ast.ImportFrom) -> None:
        """Record what an import makes each local name stand for."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    self.imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.imports[top] = top
            return
        for alias in node.names:
            if alias.name == "*":
                return
            local = alias.asname or alias.name
            if self.project is not None:
                self.foreign[local] = (node.module or "", alias.name, node.level)
            if node.module is not None and not node.level:
                self.imports[local] = f"{node.module}.{alias.name}"

    def if_statement(self, node: ast.If) -> None:
        """Read both sides of an ``if`` from the same state and join them.

        A test the pass can decide (``if tq == tk`` with both sizes known) reads one side only.
        """
        decided = self.decide(node.test)
        if decided is not None:
            self.statements(node.body if decided else node.orelse)
            return
        self.ev(node.test)
        guard = _guard(node.test)
        conjuncts = _conjuncts(node.test)

        def then() -> None:
            for each in conjuncts:
                self.narrow(each, holds=True)
            self.statements(node.body)

        def otherwise() -> None:
            self.narrow(guard, holds=False)
            self.statements(node.orelse)

        if not node.orelse and _leaves(node.body):
            # `if m.dtype != torch.bool: raise …`: after the if, the test was false
            names, attributes = dict(self.scopes[-1]), dict(self.attributes[-1])
            then()
            self.scopes[-1], self.attributes[-1] = names, attributes
            self.narrow(guard, holds=False)
            if len(self.scopes) == 1:
                self.globals = self.scopes[0]
        else:
            self.branches([then, otherwise], exhaustive=True)

    def decide(self, test: ast.AST) -> bool | None:
        """The value of a comparison of two known sizes, else None."""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return None
        sides = [self.ev(test.left), self.ev(test.comparators[0])]
        numbers = [
            side.value if isinstance(side, Dim) else side.value if isinstance(side, Const) else None
            for side in sides
        ]
        a, b = numbers
        if a is None or b is None:
            return None
        operator = test.ops[0]
        table = {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b}
        table.update({ast.Gt: a > b, ast.GtE: a >= b})
        return table.get(type(operator))

    def summary(self, function: FunctionNode) -> AnyValue | None:
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
        self.defs.append(_hoisted(function.body))
        try:
            self.statements(function.body)
            returned = self.returns[-1]
        finally:
            self.scopes.pop()
            self.functions.pop()
            self.returns.pop()
            self.defs.pop()
            found = [*self.hits[len(hits) :], *self.pending.values()]
            self.own_hits[key] = {(hit.code, id(hit.node)) for hit in found}
            self.hits, self.pending = hits, pending
            self.attributes[-1] = attributes
            self.summarising = False
        value = _returned(returned)
        self.summaries[key] = value
        return value

    def specialise(
        self,
        function: FunctionNode,
        node: ast.Call,
        values: list[AnyValue | None],
        *,
        method: bool,
        args: list[Arg] | None = None,
    ) -> tuple[bool, AnyValue | None]:
        """A helper of this module read once more with the masks this call passes it.

        Where a call hands a helper a mask the caller knows (``attend(q, k, v, ids == pad)``),
        the helper's body is read again with its parameters bound to the call's values: what
        the helper does with that mask is then checked like code of the caller's, and its
        findings are kept (a finding already made where the helper was defined is reported
        once).  The bound: two levels (a helper read this way may read one more with what it
        passes on; nothing is followed from a summary), positional and keyword arguments only
        (``*args`` reads nothing); a mask inverted where it is passed (``~mask``) is read
        again even where nothing else is known of it.  ``args``: the arguments, where they
        are not the call's own (a ``functools.partial`` adds its bound ones).  Says whether it
        read the helper, and what it returns.
        """
        passed = self.args(node) if args is None else args
        inverted = any(
            isinstance(arg.value, ast.UnaryOp) and isinstance(arg.value.op, ast.Invert)
            for arg in passed
        )
        if (
            self.summarising
            or self.specialising >= SPECIALISE_DEPTH
            or not (inverted or any(map(_informative, values)))
        ):
            return False, None
        self.summary(function)
        own = self.own_hits.get(id(function), set())
        order = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
        if method and order and order[0] == "self":
            order = order[1:]
        names = _parameters(function)
        position = 0
        for arg, value in zip(self.args(node) if args is None else args, values, strict=True):
            if arg.star:
                return False, None
            if arg.keyword is None:
                if position >= len(order):
                    return False, None
                name = order[position]
                position += 1
            else:
                name = arg.keyword
                if name not in names:
                    return False, None
            if value is not None:
                names[name] = value
        self.specialising += 1
        self.helper_calls.append((function, node))
        attributes = dict(self.attributes[-1])
        self.scopes.append(names)
        self.functions.append(function)
        self.returns.append([])
        self.defs.append(_hoisted(function.body))
        before = len(self.hits)
        try:
            self.statements(function.body)
            returned = self.returns[-1]
        finally:
            self.scopes.pop()
            self.functions.pop()
            self.returns.pop()
            self.defs.pop()
            self.attributes[-1] = attributes
            self.specialising -= 1
            self.helper_calls.pop()
        if inverted or any(map(_says_what_it_is, values)):
            # read with a mask the caller knows, or inverts where it passes it: whether the
            # name's finding holds for what it is handed
            self.readings.setdefault(id(function), {}).setdefault(id(node), []).append(
                {(hit.code, id(hit.node)) for hit in self.hits[before:]}
            )
        carried = [
            (arg, value)
            for arg, value in zip(self.args(node) if args is None else args, values, strict=True)
            if isinstance(value, Mask)
        ]
        for index in range(before, len(self.hits)):
            hit = self.hits[index]
            if (
                hit.code in POLARITY
                and carried
                and (hit.code, id(hit.node)) not in own
                and _inside(hit.node, function)
            ):
                self.hits[index] = self.relocated(hit, function, carried)
        return True, _returned(returned)

    def imported(self, name: str, node: ast.Call) -> AnyValue | None:
        """What a helper imported from another module of the checked tree returns.

        That module is read once per run (its own imports are not followed further), the
        helper's return value is taken as its summary gives it, and only a mask or a constant
        crosses back, re-anchored at this call (a finding names no line of another file).
        """
        if self.project is None or self.path is None:
            return None
        module, attr, level = self.foreign[name]
        file = self.project.module_file(self.path, module, level)
        if file is None:
            return None
        resolved = self.project.resolve(file)
        if resolved == self.project.resolve(self.path):
            return None
        reader = self.project.readers.get(resolved)
        if reader is None:
            source = self.project.source(file, attr)
            if source is None:
                return None
            reader = Interpreter(source)
            reader.outline(source.tree)
            self.project.readers[resolved] = reader
        function = reader.defs[0].get(attr)
        if function is None:
            return None
        if id(function) not in reader.summaries and not MASK_WORDS.search(reader.code(function)):
            reader.summaries[id(function)] = None
        aliases = head_counts.ALIASES.set(reader.aliases)  # its own module's head-count names
        try:
            value = reader.summary(function)
        except RecursionError:
            return None
        finally:
            head_counts.ALIASES.reset(aliases)
        line = function.lineno
        where = Origin(node, f"returned by `{attr}` ({file.name}:{line})")
        if isinstance(value, Mask):
            moved = {
                key: where
                for key in ("triangle_at", "moved_at", "repeated", "query_and_key", "unranked_at")
                if getattr(value, key) is not None
            }
            overflow = dataclasses.replace(value.overflow, origin=where) if value.overflow else None
            return value.but(origin=where, overflow=overflow, **moved)
        if isinstance(value, (Const, KeyCat)):
            return dataclasses.replace(value, origin=where)
        return None

    def instance_call(
        self, instance: Instance, method: str, node: ast.Call, values: list[AnyValue | None]
    ) -> AnyValue | None:
        """``layer(x)`` / ``layer.forward(x)`` of a class of this module, read with its values.

        The method is read again with the caller's values, in the class's own attributes; where
        the call passes nothing the checker knows, what the method returns with its parameters
        unknown (its summary: softmax weights, a mask it builds).
        """
        state = self.class_state.get(id(instance.cls))
        if state is None:
            return None
        attributes, methods = state
        function = methods.get(method)
        if function is None:
            return None
        self.attributes.append(dict(attributes))
        self.methods.append(methods)
        self.classes.append(instance.cls)
        try:
            read, value = self.specialise(function, node, values, method=True)
            if not read:
                value = self.summary(function)
        finally:
            self.attributes.pop()
            self.methods.pop()
            self.classes.pop()
        return value

    def relocated(
        self, hit: Hit, function: FunctionNode, carried: Sequence[tuple[Arg, AnyValue | None]]
    ) -> Hit:
        """A finding the helper gives only with this caller's mask, moved to the caller's argument.

        The helper is right with the masks it was written for; what needs changing is the mask
        this call passes (or the helper's contract), so the finding goes where it is passed.
        """
        origins = {id(origin.node) for _, origin in hit.facts}
        arg = next(
            (a for a, v in carried if isinstance(v, Mask) and id(v.origin.node) in origins),
            carried[0][0],
        )
        line = hit.node.lineno  # type: ignore[attr-defined]
        inside = f"in `{function.name}` (line {line}: `{_short(self.code(hit.node))}`)"
        return Hit(
            hit.code,
            arg.value,
            self.code(arg.value),
            f"{hit.expects}, {inside}",
            hit.facts,
        )

    def narrow(self, guard: Guard | None, *, holds: bool) -> None:
        """Bind what a dtype test proves about a name on one side of its ``if``."""
        if guard is None:
            return
        node, fact, positive = guard
        name = node.id
        if fact == "none":
            if positive == holds:
                self.scopes[-1][name] = NONE
            elif self.lookup(name) is NONE:
                self.scopes[-1][name] = UNKNOWN
            return
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

    def block(self, body: Sequence[ast.stmt]) -> Callable[[], None]:
        """Reading ``body``, to run later as one branch."""
        return lambda: self.statements(body)

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
        self.scopes[-1] = join([end[0] for end in ends])
        self.attributes[-1] = join([end[1] for end in ends])
        if len(self.scopes) == 1:
            self.globals = self.scopes[0]

    # -- expressions -----------------------------------------------------------------------------

    def ev(self, node: ast.AST) -> AnyValue | None:
        """Evaluate an expression to what it is known to be (None: nothing is)."""
        if isinstance(node, ast.Name):
            found = self.lookup(node.id)
            if found is None:
                return mask_from_name(node.id, node)
            if isinstance(found, Param):
                named = mask_from_name(node.id, node)
                if named is not None and named.hf and self.handed_an_additive_mask():
                    return None
                if named is not None and found.boolean:
                    # a Boolean named like an integer HF mask: the name no longer tells its meaning
                    return None if named.hf else named.but(dtype="bool")
                return named
            return None if found is UNKNOWN else found
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.BinOp):
            return self.binary(node.left, node.op, node.right, node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Compare):
            return self.comparison(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return NONE
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return Const(float(value), Origin(node, "a constant"))
            return None
        if isinstance(node, ast.IfExp):
            return self.if_expression(node)
        if isinstance(node, ast.Lambda):
            self.ev(node.body)
            return None
        if isinstance(node, ast.Tuple) and not any(
            isinstance(element, ast.Starred) for element in node.elts
        ):
            # `return embeds, mask`: a caller unpacking it gets each part
            parts = [self.ev(element) for element in node.elts]
            if any(part is not None for part in parts):
                return TupleValue(Origin(node, ""), tuple(parts))
            return None
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            each = self.each(node)
            if each is not None:
                return each
        self.scan(node)
        return None

    def each(self, node: ast.GeneratorExp | ast.ListComp) -> TupleValue | None:
        """``(split(t) for t in (q, k, v))``: one value per element of a tuple written out.

        One ``for`` over a tuple or list of as many elements as written (or a value of known
        parts, ``x.unbind(0)``), no ``if``: the element read once for each, with the name bound.
        """
        if len(node.generators) != 1:
            return None
        loop = node.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
            return None
        return self.mapped(loop.target.id, node.elt, loop.iter, Origin(node, ""))

    def map_call(self, function: ast.expr, iterated: ast.expr, origin: Origin) -> TupleValue | None:
        """``map(lambda t: split(t), (q, k, v))`` or ``map(split, (q, k, v))``: as ``each``."""
        if isinstance(function, ast.Lambda):
            parameters = function.args
            if len(parameters.args) != 1 or parameters.vararg or parameters.kwonlyargs:
                return None
            return self.mapped(parameters.args[0].arg, function.body, iterated, origin)
        if isinstance(function, ast.Name) and isinstance(iterated, (ast.Tuple, ast.List)):
            name = "__mapped"  # not a name Python code can write over
            call = ast.Call(function, [ast.Name(name, ast.Load())], [])
            for element in (call, *call.args):
                ast.copy_location(element, function)
            return self.mapped(name, call, iterated, origin)
        return None

    def mapped(
        self, name: str, body: ast.expr, iterated: ast.expr, origin: Origin
    ) -> TupleValue | None:
        """``body`` read once per element of ``iterated``, ``name`` bound to that element."""
        if isinstance(iterated, (ast.Tuple, ast.List)):
            if any(isinstance(element, ast.Starred) for element in iterated.elts):
                return None
            items: list[object] = [self.ev(element) for element in iterated.elts]
        else:
            parts = self.ev(iterated)
            if not isinstance(parts, TupleValue):
                return None
            items = list(parts.values)
        if not items or len(items) > 16:
            return None
        values: list[object] = []
        for item in items:
            self.scopes.append({name: UNKNOWN if item is None else item})  # type: ignore[dict-item]
            try:
                values.append(self.ev(body))
            finally:
                self.scopes.pop()
        return TupleValue(origin, tuple(values))

    def if_expression(self, node: ast.IfExp) -> AnyValue | None:
        """``a if test else b``: each side read with what the test says, their values joined."""
        self.ev(node.test)
        guard = _guard(node.test)
        conjuncts = _conjuncts(node.test)
        results: list[dict[str, AnyValue]] = []
        saved = dict(self.scopes[-1])
        for branch, holds in ((node.body, True), (node.orelse, False)):
            self.scopes[-1] = dict(saved)
            for each in conjuncts if holds else ([guard] if guard is not None else []):
                self.narrow(each, holds=holds)
            value = self.ev(branch)
            results.append({"r": UNKNOWN if value is None else value})
        self.scopes[-1] = saved
        if len(self.scopes) == 1:
            self.globals = self.scopes[0]
        joined = join(results).get("r")
        return None if joined is UNKNOWN else joined

    def scan(self, node: ast.AST) -> None:
        """Evaluate every expression inside a node the pass does not model."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.ev(child)
            elif not isinstance(child, (ast.expr_context, ast.operator, ast.cmpop)):
                self.scan(child)

    def attribute(self, node: ast.Attribute) -> AnyValue | None:
        """``x.attr``: ``self`` attributes, ``inf``, ``finfo(...).min``, ``.T``."""
        attr = node.attr
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            found = self.attributes[-1].get(attr)
            if found is UNKNOWN:
                return None
            return found if found is not None else mask_from_name(attr, node)
        if self.qualname(node) in ("math.inf", "torch.inf", "numpy.inf"):
            return Const(float("inf"), Origin(node, "inf"))
        base = self.ev(node.value)
        if attr in ("min", "max") and isinstance(base, Finfo):
            sign = -1.0 if attr == "min" else 1.0
            if base.absolute:
                return Const(sign * 3.4028234663852886e38, Origin(node, "float32's finfo"))
            return Const(sign * 3.0e38, Origin(node, f"torch.finfo(...).{attr}"), finfo=True)
        if attr in ("mT", "T", "mH"):
            return Transposed(Origin(node, "transposed"))
        if attr == "data" and isinstance(base, (Mask, Scores)):
            return base
        if attr == "values" and isinstance(base, RowConst):
            return base
        if attr == "attention_mask":
            named = mask_from_name(attr, node)
            return named.but(batch=True) if named is not None else None
        return None

    def unary(self, node: ast.UnaryOp) -> AnyValue | None:
        """``-c`` and ``~mask``."""
        value = self.ev(node.operand)
        if isinstance(node.op, ast.USub) and isinstance(value, Const):
            return dataclasses.replace(value, value=-value.value)
        if isinstance(node.op, ast.Invert) and isinstance(value, Mask):
            return self.invert(value, node)
        if isinstance(node.op, ast.Invert) and isinstance(value, Tensor) and value.dtype == "int":
            self.hit(
                "AM701",
                node,
                "`~` flips a Boolean tensor only; on integers ~1 is -2 and ~0 is -1",
                [("an integer tensor", value.origin)],
            )
            return Mask("mask", Origin(node, "inverted integers"), "int")
        if isinstance(node.op, ast.Invert) and value is None:
            # `~x` runs on Boolean and integer tensors only (a float raises): times a Python
            # float it is float32
            return Tensor(Origin(node, ""), "bool")
        return None

    def invert(self, mask: Mask, node: ast.AST) -> Mask:
        """``~mask``: the other meaning for a Boolean mask, a finding for any other dtype."""
        expects = "`~` flips a Boolean tensor only; on integers ~1 is -2 and ~0 is -1"
        if mask.by_name and not mask.batch:
            # `~` on a name is itself evidence the value is Boolean (on a float it raises):
            # a parameter's name saying "integer attention_mask" is contradicted here, and with
            # it the meaning the name gave (masks named so are True = masked out in some code)
            flipped = mask.flipped(Origin(node, "inverted with `~`")).but(dtype="bool")
            return flipped.but(meaning=None) if mask.hf else flipped
        if mask.kind == "additive" or mask.dtype in ("int", "float"):
            fact = (mask.says(), mask.origin)
            if mask.by_name:
                self.hit("AM702", node, expects, [fact])
            else:
                self.hit("AM701", node, expects, [fact])
            return mask.flipped(Origin(node, "inverted")).but(dtype=mask.dtype)
        return mask.flipped(Origin(node, "inverted with `~`"))

    def comparison(self, node: ast.Compare) -> AnyValue | None:
        """``ids == pad``, ``mask == 0``, ``mask > 0``: a Boolean mask and its meaning."""
        left = self.ev(node.left)
        rights = [self.ev(comparator) for comparator in node.comparators]
        if len(node.ops) != 1:
            return None
        operator = node.ops[0]
        right_node = node.comparators[0]
        right = rights[0]
        if isinstance(left, Relative) or isinstance(right, Relative):
            return self.relative_compared(node, left, right, right_node, type(operator))
        if isinstance(left, Positions) or isinstance(right, Positions):
            return self.positions_compared(
                node, (left, node.left), (right, right_node), type(operator)
            )
        equal = isinstance(operator, ast.Eq)
        unequal = isinstance(operator, ast.NotEq)
        if (
            (equal or unequal)
            and left is None
            and right is None
            and _pairwise(node.left, right_node)
        ):
            # seg[:, :, None] != seg[:, None, :]: a [B, L, L] Boolean mask (a document or
            # segment mask), whose meaning the API it reaches decides
            rank = (
                len(node.left.slice.elts)
                if isinstance(node.left, ast.Subscript) and isinstance(node.left.slice, ast.Tuple)
                else None
            )
            return Mask("mask", Origin(node, "a pairwise comparison"), dtype="bool", ndim=rank)
        if equal or unequal:
            for side in (node.left, right_node):
                name = last_name(side)
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
            keep = keep or (isinstance(operator, ast.Gt) and right.value == 0.0)
            if flip:
                return left.flipped(Origin(node, "")).but(dtype="bool")
            if keep:
                return left.but(dtype="bool", origin=Origin(node, ""), hf=False)
        if isinstance(left, Mask) and left.kind == "additive" and isinstance(right, Const):
            return Mask("mask", Origin(node, "a comparison"), dtype="bool")
        if (
            (equal or unequal)
            and left is None
            and isinstance(right, Const)
            and right.value in (0.0, 1.0)
        ):
            # adj == 0 of a tensor the pass does not know: Boolean, its meaning left to the API;
            # that it is a mask at all is a guess (dist == 1 may be a bonus), as a name's is
            return Mask(
                "mask", Origin(node, "a comparison with 0 or 1"), dtype="bool", by_name=True
            )
        return None

    def subscript(self, node: ast.Subscript) -> AnyValue | None:
        """``m[:, None, :]``: the mask's new number of axes and where its key axis went."""
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            tensor = self.ev(node.value.value)
            if not isinstance(node.slice, (ast.Slice, ast.Tuple)):
                return self.size_of(node.value.value, tensor, node.slice, node)
        base = self.ev(node.value)
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for element in elements:
            if not isinstance(element, ast.Slice):
                self.ev(element)
        if len(elements) == 1 and string_literal(elements[0]) == "attention_mask":
            named = mask_from_name("attention_mask", node)
            return named.but(batch=True) if named is not None else None
        if isinstance(base, Scores):
            if all(
                isinstance(element, ast.Slice)
                or (isinstance(element, ast.Constant) and element.value is Ellipsis)
                for element in elements
            ):
                return base  # the same axes, cut
            # an integer drops an axis, None adds one, a mask selects rows: the rank and the
            # rows are no longer known
            return dataclasses.replace(base, ndim=None, empty_row=None)
        if isinstance(base, RowConst) and int_literal(node.slice) == 0:
            return base  # s.max(-1, keepdim=True)[0]
        if isinstance(base, Positions):
            return _positions_subscript(base, elements, node)
        if isinstance(base, Layers) and not isinstance(node.slice, ast.Slice):
            return base.module
        if isinstance(base, TupleValue):
            position = int_literal(node.slice)
            if position is not None and -len(base.values) <= position < len(base.values):
                return base.values[position]  # type: ignore[return-value]
            return None
        if (
            isinstance(base, (Tensor, Transposed))
            and base.sizes is not None
            and len(base.sizes) >= 2
            and int_literal(node.slice) is not None
        ):
            # qkv[0] of a permuted [3, B, H, N, d]: one part, its rank one less
            dtype = base.dtype if isinstance(base, Tensor) else None
            return Tensor(Origin(node, ""), dtype, sizes=base.sizes[1:])
        if isinstance(base, Tensor) and base.dtype is not None:
            # an integer tensor stays one, whatever is indexed
            return Tensor(Origin(node, ""), base.dtype, base.wide)
        name = last_name(node.value)
        if (
            (base is None or isinstance(base, Param))
            and name is not None
            and "mask" in name.lower()
            and _moves_the_last_axis(elements)
        ):
            # a mask by its name, of unknown rank and meaning: what the subscript does to it
            # counts once its rank is shown (Mask.ranked)
            base = Mask("mask", Origin(node.value, f"`{name}` by its name"), by_name=True)
        if not isinstance(base, Mask):
            return None
        if base.true_set is not None and len(elements) >= 2:
            self.corner_cut(base.true_set, elements[-2], elements[-1], node)
        new_axes = sum(1 for element in elements if is_none(element))
        ellipsis = any(
            isinstance(element, ast.Constant) and element.value is Ellipsis for element in elements
        )
        integers = sum(
            1
            for element in elements
            if not isinstance(element, ast.Slice)
            and not is_none(element)
            and not (isinstance(element, ast.Constant) and element.value is Ellipsis)
        )
        consumed = sum(1 for element in elements if not is_none(element))
        key_last = base.key_last
        # a trailing None moves the key axis only when every axis was named before it
        if is_none(elements[-1]) and (
            ellipsis or (base.ndim is not None and consumed >= base.ndim)
        ):
            key_last = False
        ndim = base.ndim + new_axes - integers if base.ndim is not None else None
        pairwise = base.empty_row is not None and base.empty_row.reason == PAIRWISE
        if (
            (base.ndim is None or base.by_name)
            and base.key_last
            and base.true_set is None
            and not pairwise  # [.., L, S] already: `pair[:, None]` adds the heads' axis
            and _moves_the_last_axis(elements)
        ):
            # mask[:, None, :, None]: of a [B, S] mask, the keys go to the query axis (a rank
            # a name gives is a guess: it too waits to be shown)
            return base.but(
                unranked_at=Origin(node, ""),
                unranked_ndim=len(elements),
                empty_row=None,
                head_axes=None,
            )
        row = base.empty_row if key_last else None
        return base.but(
            key_last=key_last,
            ndim=ndim,
            unranked_at=None,
            unranked_ndim=None,
            empty_row=row,
            head_axes=None,
        )

    # -- binary operations -----------------------------------------------------------------------

    def binary(
        self,
        left_node: ast.AST,
        operator: ast.operator,
        right_node: ast.AST,
        node: ast.AST,
    ) -> AnyValue | None:
        """A binary operation: scores (``q @ kᵀ``), scaling, masks added or multiplied."""
        left = self.ev(left_node)
        right = self.ev(right_node)
        origin = Origin(node, "")
        if isinstance(left, Positions) or isinstance(right, Positions):
            return _shifted(left, right, operator, left_node, right_node, origin)
        if isinstance(operator, ast.MatMult):
            if isinstance(left, Weights) and left.nan_at is not None:
                return Attended(origin, left.nan_at)  # NaN rows of weights give NaN outputs
            if isinstance(right, Transposed) and not _keys_first(left_node, right_node):
                ndim = (
                    len(left.sizes)
                    if isinstance(left, (Tensor, Transposed)) and left.sizes
                    else None
                )
                if ndim is None and right.sizes is not None:
                    ndim = len(right.sizes)
                return self.query_key(origin, left, right, ndim)
            if isinstance(left, Transposed) and _features_first(left_node, right_node):
                # q.transpose(-2, -1) @ k of [B, H, d, N] queries and keys (channels first)
                ndim = len(left.sizes) if left.sizes else None
                return Scores(origin, scaled=left.scaled, ndim=ndim)
            if (
                isinstance(left, Tensor)
                and isinstance(right, Tensor)
                and left.sizes
                and right.sizes
                and len(left.sizes) >= 2
                and len(right.sizes) >= 2
            ):
                rank = max(len(left.sizes), len(right.sizes))
                batch = (left.sizes if len(left.sizes) == rank else right.sizes)[: rank - 2]
                return Tensor(origin, sizes=(*batch, left.sizes[-2], right.sizes[-1]))
            return None
        if isinstance(operator, ast.Add):
            return self.add(left, right, left_node, right_node, node)
        if (
            isinstance(operator, (ast.Mult, ast.Div))
            and isinstance(left, Transposed)
            and (isinstance(right, (Const, Scale, Param, Dim)) or right is None)
        ):
            # k.transpose(-2, -1) * scale: still the key side of q @ kᵀ, now scaled
            carried = None
            if isinstance(right, Scale):
                carried = (right, right_node, isinstance(operator, ast.Div))
            return dataclasses.replace(left, scaled=True, scale=carried)
        if isinstance(operator, ast.Mult) and (
            isinstance(left, Mask) or (isinstance(left, Tensor) and left.dtype == "bool")
        ):
            pair = self.pairwise(left_node, right_node, operator, node, None)
            if pair is not None:
                return pair  # m.unsqueeze(-1) * m.unsqueeze(-2): 1 where both are
        if isinstance(operator, ast.Mult):
            for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
                if (
                    is_zero_one(this)
                    and (other is None or (isinstance(other, Tensor) and other.sizes is None))
                    and _named_mask(other_node, self.lookup)
                ):
                    # causal * seq_mask[:, None, None, :]: 0 wherever the known mask is 0
                    assert isinstance(this, Mask)
                    return this.but(origin=origin, true_set=None, key_padding=False, meaning=None)
                named = (other is None and _named_mask(other_node, self.lookup)) or (
                    isinstance(other, Mask) and other.by_name and other.kind == "mask"
                )
                if isinstance(this, Scores) and (
                    is_zero_one(other)
                    # by a name only where the product is all the statement assigns (a penalty
                    # added beside it, or a softmax around it, is another story)
                    or (named and node is self.assigned_value)
                ):
                    return am2_fills.multiplied_mask(self, this, node)
                if isinstance(this, Scores):
                    return self.scaled(this, other, other_node, divide=False)
                if isinstance(this, Weights) and this.weak and isinstance(other, Mask):
                    return self.weak_released(this)  # softmax(where(m, s, 0)) * m
                if (
                    isinstance(this, Weights)
                    and this.unmasked
                    and isinstance(other, Mask)
                    and not other.by_name
                ):
                    return am4_softmax.after_softmax(self, this, node, other)
                if isinstance(this, Mask) and isinstance(other, Const):
                    return self.penalty(this, other, node)
                if isinstance(this, Weights) and isinstance(other, Scale):
                    return am5_scale.scaled_weights(self, this, node)
            folded = _fold(left, right, operator, node)
            if folded is not None:
                return folded
            if all(isinstance(side, Tensor) and side.dtype == "int" for side in (left, right)):
                return Tensor(origin, "int")  # integers times integers
            for this, other in ((left, right), (right, left)):
                if isinstance(this, OneMinus) and isinstance(other, Const):
                    am2_fills.infinite_product(
                        self, other, node, ("1 - x: 0 wherever x is 1", this.origin)
                    )
            constant = right if isinstance(right, Const) else left
            tensor = left if constant is right else right
            if (
                isinstance(constant, Const)
                and _overflows_float16(constant)
                and not isinstance(tensor, (Const, Scale, Mask))
                and not (isinstance(tensor, Tensor) and (tensor.wide or tensor.dtype != "float"))
            ):
                # an indicator times -1e20: the product keeps the tensor's dtype
                return Mask("additive", origin, dtype="float", overflow=constant)
            for this, other, other_node in ((left, right, right_node), (right, left, left_node)):
                if isinstance(this, Tensor) and isinstance(other, Scale):
                    # a query (a projection's output) scaled before q @ kᵀ
                    return ScaledTensor(origin, (other, other_node, False))
            if isinstance(left, Scale):
                return left
            if isinstance(right, Scale):
                return right
            return ScaledTensor(origin)
        if isinstance(operator, (ast.Div, ast.Sub, ast.Pow)):
            folded = _fold(left, right, operator, node)
            if folded is not None:
                return folded
        if isinstance(operator, ast.Div):
            if isinstance(left, Exp) and isinstance(right, ExpSum) and right.exp is left:
                # exp(s) / exp(s).sum(dim, keepdim=True): a softmax written out
                return self.softmax(node, left.scores, 0, dim=(right.dim, right.at))  # type: ignore[arg-type]
            if isinstance(left, Scores):
                return self.scaled(left, right, right_node, divide=True)
            if isinstance(left, Weights) and isinstance(right, Scale):
                return am5_scale.scaled_weights(self, left, node)
            if isinstance(left, Weights):
                if left.masked_at is not None:
                    self.pending.pop(id(left.masked_at.node), None)
                return Weights(left.origin, unmasked=left.unmasked)
            if isinstance(left, Const) and isinstance(right, Scale):
                return Scale(origin, right.width, inverted=not right.inverted)
            if isinstance(left, Tensor) and isinstance(right, Scale):
                return ScaledTensor(origin, (right, right_node, True))
            return ScaledTensor(origin)
        if isinstance(operator, ast.Sub):
            if isinstance(left, Scores) and isinstance(right, RowConst):
                # scores - scores.max(-1, keepdim=True): the shift a stable softmax takes
                return left
            if isinstance(left, Scores):
                penalty = self.subtracted_penalty(right_node)
                if penalty is not None:
                    return self.add(left, penalty, left_node, right_node, node)
            if (
                isinstance(left, Const)
                and left.value == 1.0
                and isinstance(right, Mask)
                and right.kind == "mask"
            ):
                return right.flipped(origin).but(dtype=right.dtype or "float")
            if isinstance(left, Const) and left.value == 1.0 and not isinstance(right, Const):
                return OneMinus(origin)
            return None
        if isinstance(operator, ast.Pow) and isinstance(right, Const):
            if isinstance(left, Scale) or right.value not in (-0.5, 0.5):
                return None  # the root of a scale: (1 / √d) ** 0.5 on each of q and k
            width = self.width_of(left_node, node)
            if isinstance(left, Dim):
                # a size read from a tensor says what it is, whatever its name
                width = self.code(left_node) if left.role == "width" else None
            if right.value == -0.5:
                return Scale(origin, width, inverted=False)
            if right.value == 0.5:
                return Scale(origin, width, inverted=True)
            return None
        if isinstance(operator, (ast.BitAnd, ast.BitOr)):
            combined = self.combine(left, right, node)
            return self.pairwise(left_node, right_node, operator, node, combined) or combined
        return None

    def pairwise(
        self,
        left_node: ast.AST,
        right_node: ast.AST,
        operator: ast.operator,
        node: ast.AST,
        combined: AnyValue | None,
    ) -> Mask | None:
        """``m[:, :, None] & m[:, None, :]``: one per-position mask on the query and key axes.

        A query whose own entry is False (for ``&``; True for ``|``) has a row of the same
        value on every key: read as allowed (forbidden), that row allows no key.  The row is
        empty only where the data has such a position, so it is a warning (AM602).
        """
        sides = _pair_sides(left_node, right_node, self.rank_of(left_node))
        bases = {side[0] for side in sides if side is not None}
        if None in sides or len(sides) != 2 or len(bases) != 1:
            return None  # one tensor, once on the query axis and once on the key axis
        if isinstance(combined, Mask) and combined.query_and_key is not None:
            return None  # a known padding mask on both axes: AM602 at its sink already
        made = combined if isinstance(combined, Mask) else None
        if made is None:
            base = self.ev(left_node)
            dtype = base.dtype if isinstance(base, (Mask, Tensor)) else None
            made = Mask("mask", Origin(node, ""), dtype=dtype)
        row = 1.0 if isinstance(operator, ast.BitOr) else 0.0
        return made.but(
            empty_row=Origin(node, PAIRWISE),
            row_value=row,
            key_padding=False,
            key_last=True,
            moved_at=None,
            unranked_at=None,
            unranked_ndim=None,
        )

    def rank_of(self, node: ast.AST) -> int | None:
        """The rank of what ``x.unsqueeze(a)`` adds an axis to, where the pass knows it."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            return None
        base = self.ev(node.func.value)
        if isinstance(base, Mask):
            return base.ndim
        if isinstance(base, Tensor) and base.sizes is not None:
            return len(base.sizes)
        return None

    def subtracted_penalty(self, node: ast.AST) -> Mask | None:
        """``1e9 * m`` in ``scores - 1e9 * m``: the additive mask ``m * -1e9``.

        Only a product of exactly a 0/1 mask and a constant (:meth:`penalty` takes only one of
        a penalty's size).
        """
        parts = factors(node)
        if len(parts) != 2:
            return None
        values = [self.ev(factor) for factor in parts]
        masks = [value for value in values if isinstance(value, Mask) and value.kind == "mask"]
        consts = [value for value in values if isinstance(value, Const)]
        if len(masks) != 1 or len(consts) != 1:
            return None
        negative = dataclasses.replace(consts[0], value=-consts[0].value)
        made = self.penalty(masks[0], negative, node)
        return made if isinstance(made, Mask) else None

    def combine(
        self, left: AnyValue | None, right: AnyValue | None, node: ast.AST
    ) -> AnyValue | None:
        """``a & b`` / ``a | b`` of two masks."""
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
        left: AnyValue | None,
        right: AnyValue | None,
        left_node: ast.AST,
        right_node: ast.AST,
        node: ast.AST,
    ) -> AnyValue | None:
        """``x + y``: a mask added to scores, or two additive masks summed."""
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
                if isinstance(other, Mask) and other.unranked_at is not None:
                    ranked = other.ranked(this.ndim, this.origin)
                    if ranked is not other:
                        am6_padding.layout_check(
                            self, ranked, other_node, "scores + mask", scores=True
                        )
                if isinstance(other, Mask):
                    am2_fills.additive_sink(
                        self, other, other_node, "scores + mask adds the mask's values"
                    )
                    am2_fills.overflow_sink(self, other)
                    am8_heads.tiling_check(self, this, other)
                biased = this.biased or (
                    other is None and any("bias" in name for name in names_in(other_node))
                )
                row = this.empty_row
                if isinstance(other, Mask) and other.kind == "additive" and other.empty_row:
                    row = other.empty_row
                if isinstance(other, Mask) and other.kind == "additive":
                    this = _penalise(this, Origin(node, "the mask's penalty added to the scores"))
                return dataclasses.replace(
                    this, masked=True, fixable=None, biased=biased, empty_row=row
                )
        for this, other, this_node in ((left, right, left_node), (right, left, right_node)):
            if isinstance(this, Mask) and (
                other is None or isinstance(other, (Param, Tensor, ScaledTensor, Transposed))
            ):
                # x + indicator * -1e20, x + a 0/1 mask: about attention only if a softmax
                # reads the sum
                before = len(self.hits)
                am2_fills.overflow_sink(self, this)
                am2_fills.additive_sink(self, this, this_node, "x + mask adds the mask's values")
                found = tuple(self.hits[before:])
                row = this.empty_row if this.kind == "additive" else None
                if not found and row is None:
                    continue
                del self.hits[before:]
                return Scores(
                    Origin(node, ""), scaled=True, masked=True, pending=found, empty_row=row
                )
        return _fold(left, right, ast.Add(), node)

    def penalty(self, mask: Mask, const: Const, node: ast.AST) -> AnyValue | None:
        """``mask * -1e9``: a 0/1 mask turned into an additive penalty where it is 1."""
        if const.value > PENALTY and not const.finfo:
            return None
        if mask.kind == "additive":
            return None
        am2_fills.infinite_product(self, const, node, (mask.says(), mask.origin))
        am1_polarity.penalty_sink(
            self, mask, node, f"`{self.code(node)}` puts the penalty where the mask is 1"
        )
        # a Boolean or integer mask times a Python float is float32: only a float mask keeps
        # its own (maybe narrower) dtype
        narrow = mask.dtype == "float" and not mask.wide
        overflow = const if narrow and _overflows_float16(const) else None
        return Mask(
            "additive",
            Origin(node, ""),
            dtype="float",
            finfo_terms=int(const.finfo),
            overflow=overflow,
            unranked_at=mask.unranked_at,
            unranked_ndim=mask.unranked_ndim,
            repeated=mask.repeated,
            interleaved=mask.interleaved,
        )

    def weak_released(self, weights: Weights) -> Weights:
        """Weights of weakly masked scores, masked again after the softmax: the fill is moot."""
        for fill in weights.weak:
            self.pending.pop(id(fill), None)
        return dataclasses.replace(weights, weak=())

    # -- calls -----------------------------------------------------------------------------------

    def call(self, node: ast.Call) -> AnyValue | None:
        """A call: each API the rules know, by its qualified name or method name."""
        func = node.func
        args = self.args(node)
        qualified = self.qualname(func)
        method = func.attr if isinstance(func, ast.Attribute) else None
        receiver: AnyValue | None = None
        if method is not None and qualified is None and isinstance(func, ast.Attribute):
            receiver = self.ev(func.value)
        elif qualified is None:
            receiver = self.ev(func)
        values = [self.ev(arg.value) for arg in args]
        origin = Origin(node, "")
        short = qualified.rsplit(".", 1)[-1] if qualified else None
        # torch.f(x, ...) is x.f(...): the tensor acted on
        function = ops.function_form(qualified)
        tensor = (values[0] if values else None) if function is not None else receiver
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
            self.bind(func.value, receiver.but(empty_row=None, row_value=None))
        if isinstance(receiver, Positions) and method is not None:
            return self.positions_method(receiver, method, node, values)

        if isinstance(func, ast.Name) and func.id in ("int", "bool") and qualified is None and args:
            # the builtins: a Python int or bool, whose ~ is arithmetic (~0 == -1, ~True == -2)
            return Tensor(origin, "int")
        if method == "forward" and isinstance(receiver, Module):
            return self.module_call(receiver, node, values)  # layer.forward(x) as layer(x)
        if isinstance(func, ast.Call) and isinstance(receiver, Module):
            return self.module_call(receiver, node, values)  # nn.Softmax(dim=-1)(scores)
        if qualified is None and (
            isinstance(func, ast.Name)
            or (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "self"
            )
            or isinstance(func, ast.Subscript)  # self.layers[i](...)
        ):
            callee = self.ev(func)
            if isinstance(callee, Mask) and callee.by_name:
                callee = None  # `lengths_to_padding_mask(...)` names a function, not a mask
            if isinstance(callee, Module):
                return self.module_call(callee, node, values)
            if isinstance(callee, Partial):
                read, value = self.specialise(
                    callee.function,
                    node,
                    [*callee.values, *values],  # type: ignore[list-item]
                    method=False,
                    args=[*callee.args, *args],
                )
                return value if read else None
            if isinstance(callee, Instance):
                value = self.instance_call(callee, "forward", node, values)
                if "norm" in (method or "").lower() and not isinstance(
                    value, (Mask, Scores, Weights)
                ):
                    # q = self.q_norm(q): a normalised query carries its own (learned) scale
                    return ScaledTensor(origin)
                return value
            if (
                callee is None
                and isinstance(func, ast.Name)
                and func.id in self.class_defs
                and self.lookup(func.id) is None
            ):
                return Instance(origin, self.class_defs[func.id])
            called = func.id if isinstance(func, ast.Name) else method
            helper = (
                self.function_named(called, method=isinstance(func, ast.Attribute))
                if called is not None
                else None
            )
            if (
                callee is None
                and helper is None
                and isinstance(func, ast.Name)
                and func.id in self.foreign
            ):
                return self.imported(func.id, node)
            if callee is None and helper is not None:
                read, value = self.specialise(
                    helper, node, values, method=isinstance(func, ast.Attribute)
                )
                return value if read else self.summary(helper)
        if isinstance(receiver, Instance) and method is not None:
            return self.instance_call(receiver, method, node, values)
        if (
            isinstance(func, ast.Name)
            and func.id == "map"
            and self.lookup("map") is None
            and len(args) == 2
            and not any(arg.keyword or arg.star for arg in args)
        ):
            return self.map_call(args[0].value, args[1].value, origin)
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
        if qualified == "functools.partial" and args and isinstance(args[0].value, ast.Name):
            bound = self.function_named(args[0].value.id, method=False)
            if bound is not None and not any(arg.star for arg in args):
                return Partial(origin, bound, tuple(args[1:]), tuple(values[1:]))
            return None
        if method == "register_buffer" and len(args) >= 2:
            name = string_literal(args[0].value)
            if name is not None and values[1] is not None:
                self.attributes[-1][name] = values[1]
            return None
        if qualified in SOFTMAX or (method == "softmax" and qualified is None):
            subject = receiver if method == "softmax" and qualified is None else None
            offset = 0 if subject is not None else 1
            if subject is None and values:
                subject = values[0]
            softmax_input = func.value if offset == 0 and isinstance(func, ast.Attribute) else None
            if softmax_input is None and args and args[0].keyword is None:
                softmax_input = args[0].value
            self.fill_read_by_softmax(softmax_input)
            return self.softmax(node, subject, offset)
        if qualified in TANH and values and isinstance(values[0], Scores):
            return self.softcap(values[0], node)  # torch.tanh(scores)
        if method in ("tanh", "tanh_") and qualified is None and isinstance(receiver, Scores):
            return self.softcap(receiver, node)  # scores.tanh()
        if qualified == SDPA:
            self.sdpa(node, values)
            return None
        if qualified in OWN_SDPA:
            allowed = apis.OWN_SDPA.argument("allowed")
            arg, value = self.given(node, values, allowed)
            # a mask that is not Boolean raises MaskDtypeError there: no silent mistake to report
            if arg is not None and isinstance(value, Mask) and value.dtype in ("bool", None):
                am1_polarity.allowed_sink(
                    self, value, arg, f"{apis.OWN_SDPA.label}({allowed.keyword}=…)"
                )
            return None
        if qualified == MHA_FORWARD:
            for keyword in (mask.keyword for mask in apis.MHA_FORWARD.masks):
                # by keyword only: its masks are read where named, not at their positions
                arg, value = self.argument(node, values, None, keyword)
                if arg is not None and isinstance(value, Mask):
                    am1_polarity.forbidden_sink(
                        self, value, arg, f"{apis.MHA_FORWARD.label}({keyword}=…)"
                    )
            return None
        if short == "Softmax" and qualified and qualified.startswith("torch.nn"):
            arg, _ = self.argument(node, values, 0, "dim")
            dim = int_literal(arg.value) if arg is not None else None
            return Module("softmax", False, origin, dim=dim, implicit=arg is None)
        if short in MODULES and qualified and qualified.startswith("torch.nn"):
            return self.construct(MODULES[short], node, values)
        if short == "ModuleList" and qualified and qualified.startswith("torch.nn") and args:
            return self.layers_of(args[0].value, origin)
        if qualified == "torch.nn.Embedding":
            return Module("embedding", False, origin)
        if qualified in ("torch.nn.Linear", "torch.nn.LazyLinear"):
            position = 1 if short == "Linear" else 0
            arg, _ = self.argument(node, values, position, "out_features")
            return Module("linear", False, origin, out=int_literal(arg.value) if arg else None)
        if qualified in ("torch.nn.Conv1d", "torch.nn.Conv2d"):
            arg, _ = self.argument(node, values, 1, "out_channels")
            return Module("conv", False, origin, out=int_literal(arg.value) if arg else None)
        if qualified == "torch.nn.Sequential":
            return Module("sequential", False, origin, parts=tuple(values))
        if short in SHAPE_KEEPING and qualified and qualified.startswith("torch.nn"):
            return Module("same", False, origin)
        if method in ("masked_fill", "masked_fill_") or function == "masked_fill":
            filled = args
            if function == "masked_fill":
                receiver, values, filled = tensor, values[1:], args[1:]
            return self.masked_fill(node, receiver, filled, values, func)
        if short in ("triu", "tril") or method in ("triu", "tril", "triu_", "tril_"):
            return self.triangle(node, qualified, receiver, values)
        if qualified in ("torch.triu_indices", "torch.tril_indices"):
            return self.triangle_indices(node, qualified.endswith("tril_indices"))
        if ops.widens(method) and not args and not isinstance(receiver, (Mask, Scores)):
            # float32 (or float64) by construction: a fill of -1e9 fits there
            return Tensor(origin, "float", wide=True)
        if isinstance(receiver, Tensor) and receiver.holds is not None:
            narrowed = self.narrowing(node, method, args)
            if narrowed is not None:
                am2_fills.overflow_check(self, receiver.holds, node, narrowed)
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
            return self.convert(receiver, node)
        if ops.dtype_argument(method) and "int" in (
            self.created_dtype(node, like=True),
            _integer_dtype(args[0].value) if args and args[0].keyword is None else None,
        ):
            return Tensor(origin, "int")
        if (
            ops.dtype_argument(method)
            and not isinstance(receiver, (Mask, Scores))
            and any(_wide(self.code(arg.value)) for arg in args if arg.keyword in (None, "dtype"))
        ):
            # float32 (or float64) by construction: a fill of -1e9 fits there
            return Tensor(origin, "float", wide=True)
        if method == "logical_not" or qualified == "torch.logical_not":
            subject = receiver if method == "logical_not" else (values[0] if values else None)
            return self.invert(subject, node) if isinstance(subject, Mask) else None
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
            per_head = self.mask_per_head(receiver, method, node, args)
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
        if method == "repeat" and not isinstance(receiver, Mask) and self.tiles_heads(node):
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
        stable = self.hand_written_softmax(node, method, qualified, receiver, args, values)
        if stable is not None:
            return stable
        if method in ("nan_to_num", "nan_to_num_") or function == "nan_to_num":
            guarded = self.nan_guard(tensor if function == "nan_to_num" else receiver)
            if guarded is not None:
                return guarded
        if (method == "topk" or function == "topk") and isinstance(tensor, Scores):
            self.top_k(tensor)
        if ops.moves(method, "reshape") and isinstance(receiver, Tensor) and receiver.features:
            am8_heads.head_split_check(self, receiver.features, node, args, values)
        if ops.moves(method, "reshape"):
            split = self.heads_view(receiver, node, args, values)
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
            return self.flattened(receiver, node, values, origin)
        if method == "contiguous" and isinstance(receiver, (Scores, Transposed)):
            return receiver
        if method in ("repeat_interleave", "repeat") and receiver is None:
            # a mask the pass knows nothing of, tiled for the heads: its order still shows
            receiver = self.unknown_mask(func)
        if method == "repeat_interleave" and isinstance(receiver, Mask) and args:
            along, _ = self.argument(node, values, 1, "dim")
            if (
                along is not None
                and int_literal(along.value) == 0
                and head_counts.counts(args[0].value)
                and receiver.true_set is None  # a triangle: every order is right
            ):
                return receiver.but(interleaved=origin)  # batch-major: b·H + h
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
        if (
            isinstance(receiver, ScaledTensor)
            and ops.keeps_scale(method)
            and not ops.reorders(method)
        ):
            # a scaled query, its heads split off (or not): still scaled
            return dataclasses.replace(receiver, origin=origin)
        if method in SCALING_METHODS and args:
            if isinstance(receiver, Scores):
                divide = method.startswith("div")
                return self.scaled(receiver, values[0], args[0].value, divide=divide)
            if not isinstance(receiver, Mask):
                return ScaledTensor(origin)
        if method == "size" and len(args) == 1 and isinstance(func, ast.Attribute):
            return self.size_of(func.value, receiver, args[0].value, node)
        if ops.moves(method, "swap") and isinstance(receiver, Scores):
            # the scores' other axes swapped (heads and queries): the keys stay last
            axes = [int_literal(arg.value) for arg in args]
            rank = receiver.ndim
            if (
                rank is None
                or len(axes) != 2
                or any(a is None or not -rank <= a < rank for a in axes)
            ):
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
                rows = (
                    receiver.major if 0 not in (one % len(swapped), other % len(swapped)) else None
                )
                return Transposed(
                    origin, tuple(swapped), axes=order, major=rows, split=receiver.split
                )
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
                return self.query_key(origin, receiver, values[0], 2 if method == "mm" else rank)
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
                return self.query_key(origin, values[0], keys, 3 if short == "bmm" else rank)
            return None
        if qualified == "torch.einsum":
            return _einsum(args, values, origin)
        if (qualified == "torch.baddbmm" or (method == "baddbmm" and qualified is None)) and args:
            return self.baddbmm(node, values, method=qualified is None)
        if (
            short in ("cat", "concat", "concatenate")
            and qualified
            and qualified.startswith("torch")
        ):
            joined = args[0].value if args else None
            stacked = self.heads_stacked(node, values, joined)
            if stacked is not None:
                return stacked
            tiled = self.tiled_list(joined)
            if tiled is not None:
                axis_arg, _ = self.argument(node, values, 1, "dim")
                if axis_arg is None or int_literal(axis_arg.value) == 0:
                    # torch.cat([mask] * num_heads): the copies one after another, head-major
                    return tiled.but(repeated=origin)
            if isinstance(joined, (ast.List, ast.Tuple)) and len(joined.elts) >= 2:
                axis_arg, _ = self.argument(node, values, 1, "dim")
                axis = int_literal(axis_arg.value) if axis_arg is not None else 0
                parts = [self.ev(element) for element in joined.elts]
                ranks = {
                    len(part.sizes) for part in parts if isinstance(part, Tensor) and part.sizes
                }
                if axis == -1 or (len(ranks) == 1 and axis == next(iter(ranks)) - 1):
                    # features joined: the same positions, wider vectors
                    if len(ranks) == 1:
                        rank = next(iter(ranks))
                        return Tensor(origin, sizes=tuple(Dim(origin) for _ in range(rank)))
                    return None
                if axis in (0, -2):
                    joined_rows = self.rows_joined(node, parts)
                    if joined_rows is not None:
                        return joined_rows
                return KeyCat(origin, axis=axis)
            return None
        if qualified == "torch.where" and len(values) == 3:
            return self.where(node, values)
        if qualified == "torch.finfo":
            dtype = self.code(args[0].value) if args else ""
            return Finfo(origin, absolute=dtype.endswith(("float32", "float64", "float", "double")))
        if qualified == "torch.full" and len(values) >= 2 and isinstance(values[1], Const):
            if values[1].finfo:
                return Mask("additive", origin, dtype="float", finfo_terms=1)
            full = self.filled(node, values[1], silent=False)
            return dataclasses.replace(full, sizes=self.sizes(node, values, shape_only=True))
        if qualified == "torch.full_like" and len(values) >= 2 and isinstance(values[1], Const):
            # x's dtype unless one is given; a value that dtype cannot hold raises, so it holds c
            sizes = values[0].sizes if isinstance(values[0], Tensor) else None
            return Tensor(origin, self.created_dtype(node, like=True), holds=values[1], sizes=sizes)
        if qualified in PADDED_ONES and values and _made_of_ones(values[0]):
            position, keyword = PADDED_ONES[qualified]
            padding, _ = self.argument(node, values, position, keyword)
            fill = None
            if keyword == "pad":
                fill, _ = self.argument(node, values, 3, "value")
            if padding is not None and int_literal(padding.value) != 0 and fill is None:
                # ones where the input was, zeros in the padding: 1 = a real position
                return Mask("mask", Origin(node, "ones padded with zeros"), "float", "allowed")
        if qualified == "torch.tensor" and values and isinstance(values[0], Const):
            return self.filled(node, values[0], silent=True)
        if qualified == "torch.tensor" and args and _int_literals(args[0].value):
            # integer data (the tokenizer's 1/0 attention_mask written out): int64 unless a
            # dtype is given
            dtype = self.created_dtype(node, like=True) or "int"
            return Tensor(origin, dtype)
        if (
            short in (*CONSTRUCTORS, "randn", "rand")
            and qualified
            and qualified.startswith("torch")
        ):
            like = short.endswith("_like")
            sizes = None if like else self.sizes(node, values)
            if like and values and isinstance(values[0], Tensor):
                sizes = values[0].sizes
            zero_one = short in ("zeros", "ones", "zeros_like", "ones_like")
            return Tensor(
                origin, self.created_dtype(node, like=like), sizes=sizes, zero_one=zero_one
            )
        if short == "sqrt" and qualified in ("math.sqrt", "numpy.sqrt", "torch.sqrt"):
            argument = args[0].value if args else None
            width = None if argument is None else self.width_of(argument, node)
            if argument is not None and isinstance(values[0], Dim):
                width = self.code(argument) if values[0].role == "width" else None
            # sqrt(1 / (3 * d)) is already the reciprocal: a factor, not a divisor
            reciprocal = (
                isinstance(argument, ast.BinOp)
                and isinstance(argument.op, ast.Div)
                and isinstance(argument.left, ast.Constant)
                and argument.left.value == 1
            )
            if values and (
                isinstance(values[0], Scale)
                or (argument is not None and "scale" in self.code(argument).lower())
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
        if short in FLEX_MASK_MAKERS and qualified and ("flex_attention" in qualified):
            if args:
                self.mask_mod(args[0].value)
            return None
        if isinstance(receiver, Module) and receiver.kind == "embedding":
            return self.embedded(node)
        return None

    def sizes(
        self, node: ast.Call, values: list[AnyValue | None], *, shape_only: bool = False
    ) -> tuple[Dim, ...] | None:
        """The sizes a constructor is given: ``ones(L, S)`` or ``ones((L, S))``.

        ``shape_only``: the first argument is the whole shape (``torch.full(shape, value)``).
        """
        args = [arg for arg in self.args(node) if arg.keyword is None]
        if shape_only:
            args = args[:1]
            if not args or not isinstance(args[0].value, (ast.Tuple, ast.List)):
                return None
        if any(arg.star for arg in args):
            return None
        if len(args) == 1 and isinstance(args[0].value, (ast.Tuple, ast.List)):
            elements: list[ast.expr] = list(args[0].value.elts)
            found = [self.ev(element) for element in elements]
        else:
            elements = [arg.value for arg in args]
            found = values[: len(args)]
        return tuple(
            _as_dim(value, element) for value, element in zip(found, elements, strict=True)
        )

    def size_of(
        self, tensor_node: ast.AST, tensor: AnyValue | None, index: ast.AST, node: ast.AST
    ) -> Dim | None:
        """``x.size(i)`` / ``x.shape[i]``: a size, with its role and value where known."""
        axis = int_literal(index)
        if axis is None:
            return None
        role = _role(last_name(tensor_node)) if axis in (-2, 2) else None
        if isinstance(tensor, KeyCat) and (axis in (-2, 2) or axis == tensor.axis == 1):
            # (axis 1: `torch.cat([mems, x], dim=1)` of [B, S, D] hidden states; axis 0 is a
            # batch as often as a sequence-first length, and says nothing)
            # the length of keys with a cache joined in front: S > L on the cached path
            return Dim(Origin(node, ""), role, None, read=True, cache=tensor.origin)
        value = None
        sizes = tensor.sizes if isinstance(tensor, (Tensor, Transposed)) else None
        if sizes is not None and -len(sizes) <= axis < len(sizes):
            known = sizes[axis]
            value = known.value
            role = role or known.role
        return Dim(Origin(node, ""), role, value, read=True)

    def narrowing(self, node: ast.Call, method: str | None, args: list[Arg]) -> str | None:
        """The dtype a conversion call goes to, unless it is float32 / float64 for certain.

        ``.half()`` and ``.bfloat16()``, and ``.to(x)`` / ``.type(x)`` / ``.type_as(x)`` whose
        dtype is a variable (``.to(dtype)``, ``.to(q.dtype)``): the constant must fit it.  A
        device (``.to("cuda")``, ``.to(x.device)``) is no conversion.
        """
        if method in ("half", "bfloat16") and not args:
            return f"{method}()"
        if method not in ("to", "type", "type_as") or not args:
            return None
        for arg in args:
            text = self.code(arg.value)
            if arg.keyword not in (None, "dtype") or "device" in text:
                continue
            if _wide(text):
                return None
            if method == "type_as" or arg.keyword == "dtype" or "dtype" in text:
                return text
            if any(narrow in text for narrow in ("float16", "half", "bfloat16")):
                return text
        return None

    def filled(self, node: ast.Call, const: Const, *, silent: bool) -> Tensor:
        """``torch.full(shape, c)`` / ``torch.tensor(c)``: float32 unless a dtype is given.

        ``silent``: the call converts a value out of the dtype's range to ±inf without a word
        (``torch.tensor``); ``torch.full`` raises instead, which needs no finding.
        """
        for arg in self.args(node):
            if arg.keyword == "dtype":
                text = self.code(arg.value)
                if _wide(text):
                    return Tensor(Origin(node, ""), "float", wide=True, holds=const)
                if silent:
                    am2_fills.overflow_check(self, const, node, text)
                # 0 and ±inf are the same in every float dtype
                kept = const if const.value == 0.0 or math.isinf(const.value) else None
                return Tensor(Origin(node, ""), self.created_dtype(node, like=True), holds=kept)
        return Tensor(Origin(node, ""), "float", wide=True, holds=const)

    def argument(
        self, node: ast.Call, values: list[AnyValue | None], position: int | None, keyword: str
    ) -> tuple[Arg | None, AnyValue | None]:
        """The argument at ``position`` or given as ``keyword``, and its value."""
        for index, arg in enumerate(self.args(node)):
            if arg.keyword == keyword:
                return arg, values[index]
            if arg.keyword is None and arg.star == "" and index == position:
                return arg, values[index]
        return None, None

    def given(
        self, node: ast.Call, values: list[AnyValue | None], argument: apis.Argument
    ) -> tuple[Arg | None, AnyValue | None]:
        """An attention API's argument (a row of ``apis.py``) in this call, and its value."""
        return self.argument(node, values, argument.position, argument.keyword)

    def layers_of(self, node: ast.AST, origin: Origin) -> Layers | None:
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
        modules = [self.ev(element) for element in elements]
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

    def embedded(self, node: ast.Call) -> Embedded | None:
        """An embedding of token ids the code shows batch first: ``[B, T, E]``.

        The ids are a tokenizer's ``input_ids`` (``batch["input_ids"]``, ``enc.input_ids``,
        always ``[B, T]``), or the function reads their sizes under names that say so
        (``bsz, seq_len = ids.shape``, ``batch_size = ids.size(0)``, ``T = ids.shape[1]``)
        and nowhere the other way round (``seq_len = src.size(0)``, the sequence-first layout
        of PyTorch's word-language model).  Anything else is unknown.
        """
        args = self.args(node)
        if not args or args[0].keyword or args[0].star:
            return None
        ids = args[0].value
        origin = Origin(node, "an nn.Embedding of token ids [B, T]: batch first, [B, T, E]")
        if _tokenizer_ids(ids):
            return Embedded(origin)
        if not isinstance(ids, ast.Name) or not self.functions:
            return None
        first = _ids_layout(self.functions[-1], ids.id)
        return Embedded(origin) if first == {"batch"} else None

    def construct(self, kind: str, node: ast.Call, values: list[AnyValue | None]) -> Module:
        """A constructed ``nn.MultiheadAttention`` / ``nn.Transformer*`` module."""
        batch_first = False
        for arg in self.args(node):
            if arg.keyword == "batch_first":
                batch_first = is_true(arg.value)
        if kind in ("encoder", "decoder") and values and isinstance(values[0], Module):
            batch_first = values[0].batch_first
        return Module(kind, batch_first, Origin(node, ""))

    def module_call(
        self, module: Module, node: ast.Call, values: list[AnyValue | None]
    ) -> AnyValue | None:
        """A call of a constructed module: its mask parameters and its input layout."""
        if module.kind == "embedding":
            return self.embedded(node)
        if module.kind in ("softmax", "linear", "conv", "same", "sequential"):
            return self.layer(module, node, values[0] if values else None)
        row = MODULE_APIS.get(module.kind)
        api = row.label if row is not None else f"nn.{module.kind}"
        for mask_argument in row.masks if row is not None else ():
            keyword = mask_argument.keyword
            arg, value = self.argument(node, values, mask_argument.position, keyword)
            if _padding_name_as_attn_mask(mask_argument, value):
                continue
            if arg is not None and isinstance(value, Mask):
                am1_polarity.forbidden_sink(self, value, arg, f"{api}({keyword}=…)")
        if row is not None:
            am3_causal.causal_hint_check(self, row, node, values, api)
        args = self.args(node)
        if args and args[0].keyword is None and not args[0].star:
            first = values[0]
            query = args[0].value
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
                and isinstance(query, ast.Call)
                and isinstance(query.func, ast.Attribute)
                and query.func.attr == "transpose"
                and [int_literal(a.value) for a in self.args(query)] in ([0, 1], [1, 0])
            ):
                self.hit(
                    "AM801",
                    query,
                    f"{api} was built with batch_first=True and reads [B, T, E]; the input was "
                    "transposed to [T, B, E]",
                    [(f"{api} with batch_first=True", module.origin)],
                )
        return None

    def layer(self, module: Module, node: ast.Call, subject: AnyValue | None) -> AnyValue | None:
        """A layer applied to a tensor: its new sizes, or the softmax it takes."""
        origin = Origin(node, "")
        if module.kind == "softmax":
            at = module.origin.node
            dim = module.dim if module.dim is not None or module.implicit else NO_DIM
            if isinstance(subject, Tensor):
                am4_softmax.size_one_check(self, subject, module.dim, at)
                return Weights(origin)
            if not isinstance(subject, Scores):
                return Weights(origin=origin) if subject is None else None
            return self.softmax(node, subject, 0, dim=(dim, at))
        if module.kind == "sequential":
            value = subject
            for part in module.parts:
                value = self.layer(part, node, value) if isinstance(part, Module) else None
            return value
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

    def sdpa(self, node: ast.Call, values: list[AnyValue | None]) -> None:
        """``F.scaled_dot_product_attention``: ``attn_mask``, ``is_causal`` and ``scale``."""
        row = apis.SDPA
        api = row.label
        attn_mask = row.argument("attn_mask")
        arg, mask = self.given(node, values, attn_mask)
        causal_arg, _ = self.given(node, values, row.argument("is_causal"))
        causal = causal_arg is not None and is_true(causal_arg.value)
        if arg is not None and not is_none(arg.value):
            if isinstance(mask, Mask):
                am1_polarity.allowed_sink(self, mask, arg, f"{api}({attn_mask.keyword}=…)")
            if causal and causal_arg is not None:
                self.hit(
                    "AM301",
                    causal_arg,
                    f"{api} refuses or ignores attn_mask with is_causal=True, depending on the "
                    "release and backend: pass one of them (fold the causal mask into attn_mask)",
                )
        if causal and causal_arg is not None:
            query, key = [*values, None, None][:2]
            lengths = [
                value.sizes[-2].value
                if isinstance(value, Tensor) and value.sizes and len(value.sizes) >= 2
                else None
                for value in (query, key)
            ]
            shorter = None not in lengths and lengths[0] < lengths[1]  # type: ignore[operator]
            if isinstance(key, KeyCat) and not isinstance(query, KeyCat) and not key.maybe:
                self.hit(
                    "AM302",
                    causal_arg,
                    "is_causal=True aligns the triangle to the top left: with fewer queries than "
                    "keys (L < S, a decode step) query i sees keys 0..i only",
                    [("keys with a cache prepended: S > L", key.origin)],
                )
            elif shorter and isinstance(key, Tensor):
                self.hit(
                    "AM302",
                    causal_arg,
                    f"is_causal=True aligns the triangle to the top left: with {lengths[0]} "
                    f"queries and {lengths[1]} keys, query i sees keys 0..i only",
                    [(f"{lengths[1]} keys", key.origin)],
                )
            elif isinstance(key, KeyCat) and not isinstance(query, KeyCat):
                self.hit(
                    "AM304",
                    causal_arg,
                    "is_causal=True aligns the triangle to the top left: on the path where the "
                    "keys hold a cache (L < S) query i sees keys 0..i only",
                    [("keys with a cache prepended on some path", key.origin)],
                )
        scale_arg, scale = self.given(node, values, row.argument("scale"))
        if scale_arg is not None:
            am5_scale.scale_check(self, scale, scale_arg.value, divide=False)

    def softmax(
        self,
        node: ast.Call,
        subject: AnyValue | None,
        offset: int,
        dim: tuple[int | None, ast.AST] | None = None,
    ) -> AnyValue | None:
        """A softmax of ``subject``; ``dim``: an ``nn.Softmax``'s axis and where it was built."""
        if isinstance(subject, Tensor) and dim is None:
            dim_arg = next(
                (
                    arg
                    for index, arg in enumerate(self.args(node))
                    if arg.keyword == "dim" or (arg.keyword is None and index == offset)
                ),
                None,
            )
            if dim_arg is not None:
                am4_softmax.size_one_check(self, subject, int_literal(dim_arg.value), dim_arg.value)
            return Weights(Origin(node, ""))
        if not isinstance(subject, Scores):
            return Weights(Origin(node, "")) if subject is None else None
        self.consumed[id(subject)] = (subject, Origin(node, "softmax"))
        if subject.late is not None:
            self.pending.pop(id(subject.late.node), None)
        weak: list[ast.AST] = []
        for pending in subject.pending:
            if isinstance(pending, Hit) and pending not in self.hits:
                if pending.fix is not None and pending is not subject.fixable:
                    # something read the filled scores before the softmax: no safe rewrite
                    pending = dataclasses.replace(pending, fix=None)
                if pending.code == "AM203":
                    # reported unless the mask zeroes these weights after the softmax (and
                    # they are renormalised: AllenNLP's masked_softmax)
                    self.pending[id(pending.node)] = pending
                    weak.append(pending.node)
                    continue
                self.hits.append(pending)
        at: ast.AST | Arg
        if dim is None:
            dim_arg = None
            for index, arg in enumerate(self.args(node)):
                if arg.keyword == "dim" or (arg.keyword is None and index == offset):
                    dim_arg = arg
            at = dim_arg if dim_arg is not None else node
            axis = int_literal(dim_arg.value) if dim_arg is not None else None
            implicit = dim_arg is None
        else:
            axis, at = dim
            implicit = axis is None
            axis = None if axis == NO_DIM else axis
        am4_softmax.axis_check(self, subject, axis, at, implicit=implicit, softmax=node)
        if (
            not subject.scaled
            # a learned position bias (T5's) is trained with unscaled scores, by design
            and not subject.biased
            # without heads, unscaled dot-product scores are a design (Luong's attention);
            # scores [B, H, L, S] have heads
            and (am5_scale.multi_head(self) or subject.ndim == 4)
            and not am5_scale.names_a_scale(self)
            and not any(word in self.enclosing_text().lower() for word in SCALE_WORDS)
        ):
            self.hit(
                "AM501",
                node,
                "scores are divided by √(head size) before the softmax (SDPA's default scale)",
                [("unscaled scores q @ kᵀ", subject.origin)],
            )
        nan_at = None
        if subject.empty_row is not None and subject.empty_row.reason == PAIRWISE:
            nan_at = Origin(node, "softmax")
            # reported where the mask is built (what needs changing), unless a guard flushes
            # the NaN weights
            at = subject.empty_row.node
            self.pending[id(node)] = Hit(
                "AM602",
                at,
                self.code(at),
                f"a padded query's row is all -inf, and the softmax of it (line "
                f"{node.lineno}: `{_short(self.code(node))}`) is 0/0, NaN",
                (("padding on both the query and the key axis", subject.empty_row),),
            )
        elif subject.empty_row is not None:
            nan_at = Origin(node, "softmax")
            # reported unless a guard flushes the NaN weights (Weights.nan_at)
            self.pending[id(node)] = Hit(
                "AM603",
                node,
                self.code(node),
                "a softmax of a row that is all -inf is 0/0, NaN: that query's output is NaN "
                "(and so is every gradient that reads it)",
                (("a softmax of scores whose mask leaves a query row no key", subject.empty_row),),
            )
        return Weights(
            Origin(node, "softmax"),
            unmasked=not subject.masked,
            unscaled=not subject.scaled,
            nan_at=nan_at,
            weak=tuple(weak),
        )

    def flattened(
        self, scores: Scores, node: ast.Call, values: list[AnyValue | None], origin: Origin
    ) -> Scores:
        """``s.flatten(start)``: the axes from ``start`` to the last become one.

        Where the scores' rank is known and ``start`` is before the key axis, the keys are folded
        in with the axes before them (DETR's ``weights.flatten(2)`` of [b, q, n, h, w]).
        """
        start, _ = self.argument(node, values, 0, "start_dim")
        end, _ = self.argument(node, values, 1, "end_dim")
        first = 0 if start is None else int_literal(start.value)
        last = -1 if end is None else int_literal(end.value)
        if scores.ndim is None or first is None or last is None:
            return dataclasses.replace(scores, ndim=None)
        first, last = first % scores.ndim, last % scores.ndim
        ndim = scores.ndim - (last - first)
        if first < scores.ndim - scores.key_axes and last == scores.ndim - 1:
            return dataclasses.replace(scores, ndim=ndim, merged=origin, key_axes=1)
        keys = scores.key_axes - (last - first) if last == scores.ndim - 1 else scores.key_axes
        return dataclasses.replace(scores, ndim=ndim, key_axes=max(keys, 1))

    def dual_softmax(self, node: ast.AST) -> bool:
        """``F.softmax(sim, 1) * F.softmax(sim, 2)``: LoFTR's dual softmax, both axes on purpose.

        The softmax is one factor of a product whose other factor is a softmax of the same
        scores: a matching's mutual score, not attention weights over the keys.
        """
        if not self.functions:
            return False
        for product in ast.walk(self.functions[-1]):
            if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
                continue
            sides = (product.left, product.right)
            if node not in sides or not all(isinstance(side, ast.Call) for side in sides):
                continue
            calls = [side for side in sides if isinstance(side, ast.Call)]
            if all(last_name(c.func) == "softmax" for c in calls) and all(c.args for c in calls):
                first, second = (self.code(c.args[0]) for c in calls)
                return first == second
        return False

    def renormalised_over_keys(self, at: ast.AST | Arg) -> bool:
        """``attn = dots.softmax(dim=1) + eps`` then ``attn / attn.sum(dim=-1, keepdim=True)``."""
        node = at.value if isinstance(at, Arg) else at
        if not self.functions:
            return False
        function = self.functions[-1]
        names = {
            statement.targets[0].id
            for statement in ast.walk(function)
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and any(inner is node for inner in ast.walk(statement.value))
        }
        return bool(names) and any(
            _over_its_key_sum(division, names) for division in ast.walk(function)
        )

    def enclosing_text(self) -> str:
        """The source of the innermost class, else function, else module being read."""
        if not self.classes and not self.functions:
            return self.source.text
        node: ast.AST = self.classes[-1] if self.classes else self.functions[-1]
        key = id(node)
        if key not in self.texts:
            self.texts[key] = self.code(node)
        return self.texts[key]

    def splits_heads(self) -> bool:
        """Whether the function being read splits a tensor into heads (a view with a head count)."""
        function = self.functions[-1] if self.functions else None
        if function is None:
            return False
        key = id(function)
        if key not in self.head_splits:
            self.head_splits[key] = any(
                isinstance(node, ast.Call)
                and (
                    (
                        isinstance(node.func, ast.Attribute)
                        and ops.moves(node.func.attr, "reshape", "unflatten")
                        and any(head_counts.counts(size) for size in _size_nodes(self.args(node)))
                    )
                    or head_counts.einops_split(node)
                )
                for node in ast.walk(function)
            )
        return self.head_splits[key]

    def heads_stacked(
        self, node: ast.Call, values: list[AnyValue | None], joined: ast.AST | None
    ) -> Tensor | None:
        """``torch.cat(torch.split(Q, d_head, dim=2), dim=0)``: TF1's heads stacked head-major.

        The features of ``[B, T, C]`` split into heads (by a head size, or ``chunk`` into a head
        count) along the last axis and joined along the batch: row ``h·B + b``.
        """
        if not (isinstance(joined, ast.Call) and last_name(joined.func) in ("split", "chunk")):
            return None
        axis_arg, _ = self.argument(node, values, 1, "dim")
        if axis_arg is not None and int_literal(axis_arg.value) != 0:
            return None
        parts = call_args(joined)
        method = isinstance(joined.func, ast.Attribute) and self.qualname(joined.func) is None
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
        self,
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
                split=(self.code(sizes[0]), self.code(sizes[2])),
            )
        if not isinstance(receiver, (Tensor, Transposed)) or receiver.axes is None:
            return None
        if len(sizes) != 3 or receiver.split is None:
            return None
        merged = sorted(self.code(factor) for factor in factors(sizes[0]))
        if int_literal(sizes[0]) != -1 and merged != sorted(receiver.split):
            return None
        if not (int_literal(sizes[1]) == -1 or _length(sizes[1], values[1]) or _second(sizes[1])):
            return None
        order = heads.major(receiver.axes)
        if order is None:
            return None
        return Tensor(origin, sizes=tuple(Dim(origin) for _ in sizes), major=order)

    def baddbmm(
        self, node: ast.Call, values: list[AnyValue | None], *, method: bool
    ) -> Scores | None:
        """``torch.baddbmm(bias, q, kᵀ, beta=0.0, alpha=scale)``: [B·H, L, S] scores times alpha.

        BLOOM's and GPT-NeoX's form: the keys transposed, or named for keys (laid out
        ``[B·H, d, S]`` already); ``alpha`` is the scale (1 where it is not given).
        """
        shift = 0 if method else 1  # x.baddbmm(q, k) has no input argument
        query_arg, query = self.argument(node, values, shift, "batch1")
        key_arg, key = self.argument(node, values, shift + 1, "batch2")
        if query_arg is None or key_arg is None:
            return None
        if not isinstance(key, Transposed) and _role(last_name(key_arg.value)) != "key":
            return None
        origin = Origin(node, "")
        scores = Scores(origin, scaled=_scaled(query) or _scaled(key), ndim=3)
        alpha_arg, alpha = self.argument(node, values, None, "alpha")
        if alpha_arg is None:
            return scores
        if isinstance(alpha, Const) and alpha.value == 1.0:
            return scores
        return self.scaled(scores, alpha, alpha_arg.value, divide=False)

    def query_key(
        self, origin: Origin, query: AnyValue | None, key: Transposed, ndim: int | None
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
        parted = any(map(_parted, (query, key))) or self.splits_heads()
        for side in (query, key):
            carried = side.scale if isinstance(side, (ScaledTensor, Transposed)) else None
            if isinstance(side, Scale) and side.width is not None:
                # `q = q * self.scale` of a query the pass does not know: the scale it carries
                carried = (side, side.origin.node, False)
            if carried is not None:
                scale, at, divide = carried
                scores = self.scaled(scores, scale, at, divide=divide, parted=parted)
        return scores

    def scaled(
        self,
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
        before = len(self.hits)
        am5_scale.scale_check(self, scale, node, divide=divide, parted=parted)
        found = tuple(self.hits[before:])
        del self.hits[before:]
        return dataclasses.replace(
            scores, scaled=True, pending=scores.pending + found, fixable=None
        )

    def masked_fill(
        self,
        node: ast.Call,
        target: AnyValue | None,
        args: list[Arg],
        values: list[AnyValue | None],
        func: ast.AST,
    ) -> AnyValue | None:
        """``x.masked_fill(mask, fill)``: the fill's size and the mask's meaning."""
        mask = values[0] if values else None
        if isinstance(mask, Mask) and isinstance(target, Scores):
            mask = mask.ranked(target.ndim, target.origin)
            am8_heads.tiling_check(self, target, mask)
        fill = values[1] if len(values) >= 2 else None
        fixable: Hit | None = None
        if isinstance(mask, Tensor | Param) or (mask is None and args):
            self.refine_boolean(args[0].value)
        if (
            isinstance(target, Mask)
            and target.kind == "mask"
            and target.dtype == "bool"
            and not target.by_name
            and isinstance(fill, Const)
            and len(args) >= 2
        ):
            self.hit(
                "AM206",
                args[1],
                "masked_fill keeps the tensor's dtype: into a Boolean tensor any nonzero fill "
                "(-inf, -1e9) is stored as True and 0.0 as False, so the result is still a 0/1 "
                "mask, not an additive one",
                [(target.says(), target.origin)],
            )
            return target
        if (
            isinstance(target, Scores)
            and id(target) in self.consumed
            and isinstance(func, ast.Attribute)
            and func.attr.endswith("_")
        ):
            return am4_softmax.late_mask(self, target, node)
        if isinstance(target, Weights) and args and _row_guard(self.code(args[0].value)):
            # w.masked_fill(w.isnan(), 0), w.masked_fill(~allowed.any(-1, keepdim=True), 0)
            return self.nan_guard(target) or target
        if (
            isinstance(target, Weights)
            and args
            and am6_padding.pair_rows_zeroed(self, args[0].value, target)
        ):
            # w.masked_fill(~valid.unsqueeze(-1), 0.0): the padded queries' rows flushed
            return self.nan_guard(target) or target
        if isinstance(target, Weights) and target.weak and isinstance(mask, Mask):
            return self.weak_released(target)
        if isinstance(target, Weights):
            if not target.unmasked:
                # the scores may have been masked before the softmax: zeroing the weights of
                # fully masked rows after it is a guard, not a second mask
                return target
            return am4_softmax.after_softmax(
                self, target, node, mask if isinstance(mask, Mask) else None
            )
        if not isinstance(fill, Const):
            held = fill.holds if isinstance(fill, Tensor) else None
            if (
                isinstance(mask, Mask)
                and held is not None
                and (held.value <= PENALTY or held.finfo)
            ):
                # a tensor of one penalty (`torch.tensor(-1e5)`, a registered buffer) fills as
                # the number does: masked_fill takes a 0-dim tensor only
                am1_polarity.penalty_sink(
                    self, mask, args[0], "masked_fill(mask, -inf) masks where True"
                )
            return _masked(target)
        fill_arg = args[1]
        before = len(self.hits)
        if fill.value <= PENALTY or fill.finfo:
            if (
                _overflows_float16(fill)
                and not _float32(func)
                and not (isinstance(target, (Tensor, Scores)) and target.wide)
                and self.attention_context(target, mask, node)
            ):
                rewrite = self.finfo_fix(node, func)
                fixable = self.hit(
                    "AM202",
                    fill_arg,
                    "masked_fill converts the fill to the tensor's dtype: float16's largest "
                    "magnitude is 65504, so this fill raises there (or overflows to -inf)",
                    fix=rewrite if isinstance(target, Scores) else None,
                    overflows=fill,
                )
                if rewrite is not None and not isinstance(target, Scores):
                    # safe only if a softmax reads the filled tensor at once (it is floating
                    # then, and nothing turns a fully masked row's values into another result)
                    self.fix_candidates[id(node)] = (fixable, rewrite)
            if isinstance(mask, Mask):
                built = isinstance(target, Tensor) and (target.zero_one or target.holds)
                am1_polarity.penalty_sink(
                    self,
                    mask,
                    args[0],
                    "masked_fill(mask, -inf) masks where True",
                    layout=isinstance(target, (Scores, Mask)) or bool(built),
                    finite=not math.isinf(fill.value),
                    scores=isinstance(target, Scores),
                )
            if not isinstance(target, Scores):
                row = self.row_left_empty(mask, fill, where=True)
                return Mask(
                    "additive",
                    Origin(node, ""),
                    dtype="float",
                    finfo_terms=int(fill.finfo),
                    empty_row=row,
                    row_value=fill.value if row is not None else None,
                )
        elif isinstance(target, Scores) and fill.value >= NOT_ZEROING and not target.penalised:
            # (scores that carry a penalty are masked: a 0 into them resets rows)
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
            fix = fixable if fixable in found and fixable.fix is not None else None
            if fill.value <= PENALTY or fill.finfo:
                target = _penalise(target, Origin(node, "the scores filled with a penalty"))
            return dataclasses.replace(
                target,
                masked=True,
                pending=target.pending + found,
                fixable=fix,
                empty_row=self.row_left_empty(mask, fill, where=True) or target.empty_row,
            )
        return None

    def where(self, node: ast.Call, values: list[AnyValue | None]) -> AnyValue | None:
        """``torch.where``: a NaN guard, or :meth:`where_value` and the query row it empties."""
        args = self.args(node)
        condition, *branches = values
        if args and _row_guard(self.code(args[0].value)):
            for branch in branches:
                guarded = self.nan_guard(branch)  # torch.where(w.isnan(), 0.0, w)
                if guarded is not None:
                    return guarded
        zeroed = self.zero_fill(node, args)
        if zeroed is not None:
            return zeroed
        result = self.where_value(node, values)
        held = [b.holds if isinstance(b, Tensor) and b.holds is not None else b for b in branches]
        for at, where_true in ((1, False), (0, True)):
            row = self.row_left_empty(condition, held[at], where=where_true)
            if row is None:
                continue
            if isinstance(result, Scores):
                return dataclasses.replace(result, empty_row=row)
            kept, penalty = held[1 - at], held[at]
            if isinstance(kept, Const) and kept.value == 0.0 and isinstance(penalty, Const):
                # torch.where(m, 0.0, -inf) of a mask with an empty row: a row of -inf
                made = Mask("additive", Origin(node, ""), "float")
                if isinstance(result, Mask) and result.kind == "additive":
                    made = result
                return made.but(empty_row=row, row_value=penalty.value)
        return result

    def zero_fill(self, node: ast.Call, args: list[Arg]) -> Scores | None:
        """AM203: ``torch.where(m == 0, m * -1e8, s)``: the penalty is 0 wherever it is put.

        The fill is ``m`` times a penalty (written in the call or assigned once above it in
        the function), and the condition picks it exactly where ``m`` is 0 (``m == 0``,
        ``~m``, ``m.logical_not()``, or ``m`` itself picking the other branch), so every
        masked score becomes 0.  The finding waits for a softmax, as a weak fill does.
        """
        if len(args) != 3 or any(arg.keyword or arg.star for arg in args):
            return None
        tested = _zero_test(args[0].value)
        if tested is None:
            return None
        name, branch = tested
        product = self.assigned_once(args[branch].value, node)
        if not isinstance(product, ast.BinOp) or not isinstance(product.op, ast.Mult):
            return None
        if self.reassigned_between(name, product, node):
            return None  # `penalty = m * -1e9; m = 1 - m`: another m is tested
        sides = ((product.left, product.right), (product.right, product.left))
        for factor, constant_node in sides:
            constant = self.ev(constant_node)
            if (
                _bare_name(factor) == name
                and isinstance(constant, Const)
                and (constant.value <= PENALTY or constant.finfo)
            ):
                break
        else:
            return None
        found = self.hit(
            "AM203",
            product,
            f"`{self.code(product)}` is 0 wherever `{name}` is 0, and torch.where puts it "
            f"exactly there: the masked scores become 0, not a penalty, and keep a weight",
            [(f"what torch.where picks where `{name}` is 0", Origin(node, ""))],
        )
        self.hits.remove(found)
        other = self.ev(args[3 - branch].value)
        scores = other if isinstance(other, Scores) else Scores(Origin(node, ""), scaled=True)
        return dataclasses.replace(
            scores, masked=True, pending=(*scores.pending, found), fixable=None
        )

    def width_of(self, node: ast.AST, at: ast.AST) -> str | None:
        """The model width a scale is taken of, by the names in it (None: a head size, unknown).

        A name assigned once in the function counts as what it was given (``dk =
        torch.tensor(self.d_model)``); a division there makes a head size, and a head size
        times a head count (vit-pytorch's ``inner_dim = dim_head * heads``) is the width.
        """
        written = _unwrapped(self.assigned_once(node, at)) if isinstance(node, ast.expr) else node
        if has_division(written):
            return None
        parts = factors(written)
        if len(parts) >= 2 and any(map(head_counts.counts, parts)) and any(map(_head_size, parts)):
            return self.code(node)
        return scale_from_name(names_in(written))

    def reassigned_between(self, name: str, first: ast.AST, last: ast.AST) -> bool:
        """Whether the function assigns ``name`` on a line after ``first`` and up to ``last``."""
        if not self.functions:
            return False
        start, end = getattr(first, "lineno", 0), getattr(last, "lineno", 0)
        return any(
            isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            and start < statement.lineno <= end
            and name
            in identifiers(
                ast.Tuple(
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
            )
            for statement in ast.walk(self.functions[-1])
        )

    def assigned_once(self, node: ast.expr, before: ast.AST) -> ast.expr:
        """The expression a name was given, where the function assigns it once, above ``before``."""
        if not isinstance(node, ast.Name) or not self.functions:
            return node
        assigned = [
            statement
            for statement in ast.walk(self.functions[-1])
            if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            and any(
                isinstance(target, ast.Name) and target.id == node.id
                for target in (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
            )
        ]
        if len(assigned) != 1 or not isinstance(assigned[0], ast.Assign):
            return node
        statement = assigned[0]
        if len(statement.targets) != 1 or statement.lineno >= getattr(before, "lineno", 0):
            return node
        return statement.value

    def where_value(self, node: ast.Call, values: list[AnyValue | None]) -> AnyValue | None:
        """``torch.where(mask, scores, -1e9)``: a Python number takes the tensor's dtype.

        ``torch.where(m, 0.0, -inf)`` is an additive mask that keeps where ``m`` is True;
        ``torch.where(m, scores, -inf)`` masked scores; two Python numbers a float32 tensor,
        which must fit the dtype it is later converted to.
        """
        condition, *branches = values
        args = self.args(node)
        both = all(isinstance(value, Const) for value in branches)
        before = len(self.hits)
        for arg, value in zip(args[1:], branches, strict=True):
            other = branches[1] if value is branches[0] else branches[0]
            if (
                isinstance(value, Const)
                and _overflows_float16(value)
                # two Python numbers give float32, where the value fits
                and not both
                and not (isinstance(other, (Tensor, Mask)) and other.wide)
            ):
                self.hit(
                    "AM202",
                    arg.value,
                    "torch.where gives a Python number the other tensor's dtype: float16's "
                    "largest magnitude is 65504, so this value becomes -inf there",
                    overflows=value,
                )
        found = tuple(self.hits[before:])
        if found and not (
            isinstance(condition, Mask) or any(isinstance(v, (Scores, Mask)) for v in branches)
        ):
            # nothing shows the tensor is about attention yet: the finding waits for a softmax
            # to read what this gives (a beam search's scores are no attention)
            del self.hits[before:]
            return Scores(Origin(node, ""), scaled=True, masked=True, pending=found)
        # a tensor filled with one constant (torch.full_like(s, -inf)) penalises as that constant
        constants = [
            b.holds if isinstance(b, Tensor) and b.holds is not None else b for b in branches
        ]
        penalties = [
            isinstance(value, Const) and (value.value <= PENALTY or value.finfo)
            for value in constants
        ]
        kept = [isinstance(value, Const) and value.value == 0.0 for value in constants]
        if isinstance(condition, Mask) and any(penalties):
            # the penalty goes where the condition is False (second branch) or True (first)
            if penalties[1]:
                am1_polarity.allowed_sink(
                    self, condition, args[0], "torch.where(mask, x, -inf) keeps x where"
                )
            else:
                am1_polarity.penalty_sink(
                    self, condition, args[0], "torch.where(mask, -inf, x) masks where True"
                )
        scores = next((value for value in branches if isinstance(value, Scores)), None)
        if scores is not None and isinstance(condition, Mask):
            am8_heads.tiling_check(self, scores, condition)
        if scores is not None and any(penalties):
            penalty_at = Origin(node, "a penalty where the mask forbids")
            return dataclasses.replace(_penalise(scores, penalty_at), masked=True)
        weak = next(
            (
                arg.value
                for arg, value in zip(args[1:], constants, strict=True)
                if (isinstance(value, Const) and value.value >= NOT_ZEROING)
                or _zeros(arg.value, self.qualname)
            ),
            None,
        )
        if (
            scores is not None
            and weak is not None
            and (
                isinstance(condition, Mask)
                or (
                    # scores a mask or bias already reached: zeroing rows is a guard then
                    not (scores.masked or scores.biased or scores.penalised)
                    and _unknown_condition(condition, args[0].value, [a.value for a in args[1:]])
                )
            )
        ):
            # torch.where(mask, scores, 0.0): the masked scores become 0, not -inf; a condition
            # of unknown meaning too (scores where it holds, a weak number where it does not)
            return am2_fills.weak_fill(self, scores, weak)
        if both and any(penalties) and any(kept):
            penalty = branches[0] if penalties[0] else branches[1]
            assert isinstance(penalty, Const)
            if _overflows_float16(penalty):
                return Tensor(Origin(node, ""), "float", wide=True, holds=penalty)
            return Mask("additive", Origin(node, ""), dtype="float", finfo_terms=int(penalty.finfo))
        if both:
            held = next(
                (v for v in branches if isinstance(v, Const) and _overflows_float16(v)), None
            )
            return Tensor(Origin(node, ""), "float", wide=True, holds=held)
        kept_mask = next((value for value in branches if isinstance(value, Mask)), None)
        if kept_mask is not None and any(isinstance(value, Const) for value in branches):
            # the mask where the condition holds, a constant elsewhere: its values stay
            return kept_mask
        return None

    def refine_boolean(self, node: ast.AST) -> None:
        """A name used as masked_fill's mask is Boolean from here on (another dtype raises)."""
        if isinstance(node, ast.Name) and not isinstance(self.lookup(node.id), Mask):
            self.scopes[-1][node.id] = Mask("mask", Origin(node, "masked_fill's mask"), "bool")

    def not_zero_one(self, node: ast.AST) -> None:
        """A tensor of zeros or ones changed in place to what may be other numbers."""
        if isinstance(node, ast.Name):
            found = self.lookup(node.id)
            if isinstance(found, Tensor) and found.zero_one:
                self.scopes[-1][node.id] = dataclasses.replace(found, zero_one=False)

    def index_fill(
        self, target: ast.Subscript, value: AnyValue | None, value_node: ast.AST
    ) -> None:
        """``X[~mask] = -1e6``: the same conversion to X's dtype as masked_fill's."""
        index = target.slice
        before = self.ev(target.value)
        written = value
        if isinstance(value_node, ast.Constant) and isinstance(value_node.value, bool):
            written = Const(float(value_node.value), Origin(value_node, "a constant"))
        row = self.row_set(target, before, written) if isinstance(written, Const) else None
        if row is not None:
            self.bind(target.value, row)
            return
        if (
            isinstance(before, Mask)
            and before.empty_row is not None
            and not (isinstance(written, Const) and written.value == before.row_value)
        ):
            # `allowed[:, 0] = True`: the empty row may have been given a key
            self.bind(target.value, before.but(empty_row=None, row_value=None))
        if not (isinstance(value, Const) and value.value in (0.0, 1.0)):
            self.not_zero_one(target.value)
        if not isinstance(value, Const):
            return
        base = self.ev(target.value)
        if isinstance(base, Weights) and base.nan_at is not None and "isnan" in self.code(index):
            self.pending.pop(id(base.nan_at.node), None)  # w[w.isnan()] = 0
            self.bind(target.value, dataclasses.replace(base, nan_at=None))
            return
        if (
            isinstance(base, Tensor)
            and base.dtype in ("float", "bool")
            and base.holds is None
            and value.value in (0.0, 1.0)
            and isinstance(target.value, ast.Name)
        ):
            # torch.zeros(...) with ones set where keys may attend (or the reverse): a 0/1
            # mask, whatever its entries mean
            self.bind(target.value, Mask("mask", Origin(target, "ones set by index"), base.dtype))
            return
        if (
            isinstance(before, Tensor)
            and before.zero_one
            and before.dtype == "float"
            and (value.value <= PENALTY or value.finfo)
            and isinstance(target.value, ast.Name)
            and _key_columns(index)
        ):
            # torch.zeros(L, S) with -inf set in whole key columns: the same keys forbidden
            # for every query, an additive padding mask
            self.bind(
                target.value,
                Mask(
                    "additive",
                    Origin(target, "penalties set in whole key columns"),
                    "float",
                    key_padding=True,
                ),
            )
            return
        triangle = self.indexed_triangle(index)
        if triangle is not None and (value.value <= PENALTY or value.finfo):
            am1_polarity.penalty_sink(
                self, triangle, value_node, "x[rows, cols] = -inf masks where the indices point"
            )
            if isinstance(base, Scores) and isinstance(target.value, ast.Name):
                self.bind(target.value, self.index_penalised(base, target, value))
            return
        if isinstance(index, (ast.Tuple, ast.Slice)):
            return
        if (
            isinstance(base, Weights)
            and base.unmasked
            and (value.value <= PENALTY or value.value == 0.0)
            and isinstance(target.value, ast.Name)
        ):
            self.bind(target.value, am4_softmax.after_softmax(self, base, target, None))
        elif isinstance(base, Scores) and isinstance(target.value, ast.Name):
            self.bind(target.value, self.index_penalised(base, target, value))
        where = self.ev(index)
        boolean = isinstance(where, Mask) or isinstance(index, ast.Compare)
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
            boolean = True
        filled = self.lookup(target.value.id) if isinstance(target.value, ast.Name) else None
        if (
            isinstance(where, Mask)  # not a clip or a clean-up (`s[s > 50] = 50`)
            and isinstance(base, Scores)
            and isinstance(filled, Scores)
            and value.value >= NOT_ZEROING
        ):
            # scores[~mask] = 0: the masked scores become 0, not -inf
            self.bind(target.value, am2_fills.weak_fill(self, filled, value_node))
        if boolean and _overflows_float16(value):
            self.hit(
                "AM202",
                value_node,
                "an index assignment converts the value to the tensor's dtype: float16's largest "
                "magnitude is 65504, so this value becomes -inf there",
                overflows=value,
            )

    def index_penalised(self, scores: Scores, target: ast.Subscript, value: Const) -> Scores:
        """``scores[mask] = value``: masked, and penalised if the value is a penalty."""
        if value.value <= PENALTY or value.finfo:
            scores = _penalise(scores, Origin(target, "the scores set to a penalty"))
        return dataclasses.replace(scores, masked=True)

    def softcap(self, scores: Scores, node: ast.AST) -> Scores:
        """AM403: tanh of scores that carry a mask's penalty: -inf becomes a finite -1.

        Reported only if a softmax reads what follows; the squashed scores carry no penalty.
        """
        if scores.penalised is None:
            return scores
        expects = (
            "tanh maps the penalty (-inf, or any large negative) to -1, so after the softcap a "
            "masked key scores -cap, a finite score, and keeps a weight"
        )
        site: ast.AST = node
        for function, call in reversed(self.helper_calls):
            # a helper that caps what it is handed is right for raw scores: the finding goes
            # to the call that hands it penalised ones
            if _inside(scores.penalised.node, function):
                break
            site = call
        if site is not node:
            line = node.lineno  # type: ignore[attr-defined]
            name = next(f.name for f, call in self.helper_calls if call is site)
            expects += f", in `{name}` (line {line}: `{_short(self.code(node))}`)"
        found = self.hit(
            "AM403", site, expects, [("scores carrying the mask's penalty", scores.penalised)]
        )
        self.hits.remove(found)
        return dataclasses.replace(
            scores, pending=(*scores.pending, found), fixable=None, penalised=None
        )

    def row_set(self, target: ast.Subscript, base: AnyValue | None, value: Const) -> Mask | None:
        """One query row set whole to what the rest of the tensor does not hold.

        ``m[0, 0, 2, :] = False`` on ones, ``bias[..., 2, :] = -inf`` on zeros.
        """
        if not (
            isinstance(base, Tensor)
            and base.zero_one
            and base.dtype in ("float", "bool")
            and isinstance(target.value, ast.Name)
            and _a_row(target.slice, base.sizes)
        ):
            return None
        origin = Origin(target, "one query row set, every key")
        if value.value in (0.0, 1.0):
            return Mask("mask", origin, base.dtype, empty_row=origin, row_value=value.value)
        if math.isinf(value.value) and value.value < 0 and base.dtype == "float":
            return Mask("additive", origin, "float", empty_row=origin, row_value=value.value)
        return None

    def positions_method(
        self, positions: Positions, method: str, node: ast.Call, values: list[AnyValue | None]
    ) -> AnyValue | None:
        """``i.unsqueeze(-1)``, ``i.expand(B, -1)``, ``i.lt(n)``: moved, kept, compared."""
        args = self.args(node)
        if method in _COMPARISONS and len(args) == 1:
            assert isinstance(node.func, ast.Attribute)
            return self.positions_compared(
                node, (positions, node.func.value), (values[0], args[0].value), _COMPARISONS[method]
            )
        if method in _KEEPS_POSITIONS:
            return dataclasses.replace(
                positions,
                origin=Origin(node, ""),
                flat=positions.flat and not ops.moves(method, "broadcast", "tile"),
            )
        if not positions.flat or len(args) not in (1, 2):
            return None
        sizes = [int_literal(arg.value) for arg in args]
        if method == "unsqueeze" and sizes in ([1], [-1]):
            return Positions(Origin(node, ""), "rows", positions.offset)
        if method == "unsqueeze" and sizes == [0]:
            return Positions(Origin(node, ""), "cols", positions.offset)
        if ops.moves(method, "reshape") and sizes == [-1, 1]:
            return Positions(Origin(node, ""), "rows", positions.offset)
        if ops.moves(method, "reshape") and sizes == [1, -1]:
            return Positions(Origin(node, ""), "cols", positions.offset)
        return None

    def relative_compared(
        self,
        node: ast.Compare,
        left: AnyValue | None,
        right: AnyValue | None,
        right_node: ast.AST,
        operator: type[ast.cmpop],
    ) -> Mask | None:
        """``rel < 0`` of ``rel = j - i``: ``j < i + 0``, read as positions compared."""
        if isinstance(right, Relative):
            left, right = right, left
            operator = _MIRRORED.get(operator, operator)
            right_node = node.left
        if not isinstance(left, Relative) or isinstance(right, Relative):
            return None
        bound = int_literal(right_node)
        offset = None if bound is None or left.minus.offset is None else left.minus.offset + bound
        shifted = dataclasses.replace(left.minus, offset=offset)
        return self.positions_compared(node, (left.plus, node), (shifted, node), operator)

    def positions_compared(
        self,
        node: ast.AST,
        left_side: tuple[AnyValue | None, ast.AST],
        right_side: tuple[AnyValue | None, ast.AST],
        operator: type[ast.cmpop],
    ) -> Mask | None:
        """A comparison of positions: a triangle, or a ``[B, S]`` mask of lengths.

        ``i[:, None] >= i[None, :]`` is True on and below the diagonal (``tril``), with the
        literal offsets on either side moving the diagonal (an offset that is no literal
        leaves the triangle unknown).  ``torch.arange(S)[None, :] < lengths[:, None]`` is a
        Boolean ``[B, S]`` key mask, True on the first ``lengths[b]`` keys: where the other
        side is named for a length (not a padding count), that is True = may attend, and
        ``>=`` True = padding.  Against a number or a tensor not made a column, the same
        meaning, its rank unknown.
        """
        origin = Origin(node, "a comparison of positions")
        if not isinstance(left_side[0], Positions):
            left_side, right_side = right_side, left_side
            operator = _MIRRORED.get(operator, operator)
        left, right = left_side[0], right_side[0]
        right_node = right_side[1]
        assert isinstance(left, Positions)
        if isinstance(right, Positions):
            if {left.axis, right.axis} != {"rows", "cols"}:
                return None
            if left.axis == "cols":
                left, right = right, left
                operator = _MIRRORED.get(operator, operator)
            base = _TRIANGLES.get(operator)
            if base is None or left.offset is None or right.offset is None:
                return Mask("mask", origin, "bool", ndim=2)
            shift = left.offset - right.offset
            triangle = Triangle(lower=base.lower, diagonal=base.diagonal + shift)
            if shift and triangle not in (CAUSAL, CAUSAL.complement()):
                # a window written on purpose (`t[:, None] + 1 >= t`: one frame of look-ahead)
                return Mask("mask", origin, "bool", ndim=2)
            return Mask("mask", origin, "bool", true_set=triangle, triangle_at=origin, ndim=2)
        if left.axis != "cols":
            return None
        column = _a_column(right_node)
        name = (last_name(_column_base(right_node)) or "").lower()
        meaning: Meaning | None = None
        counts_keys = "len" in name and meaning_named(name) is None
        if counts_keys and not re.search("pad|mask", name) and not left.offset:
            meaning = {ast.Lt: "allowed", ast.GtE: "forbidden"}.get(operator)  # type: ignore[assignment]
        if column:
            return Mask("mask", origin, "bool", meaning=meaning, key_padding=True, ndim=2)
        # against one number (`torch.arange(S) < seq_len`) or a tensor of a shape not shown:
        # a Boolean mask of the keys, its rank unknown
        return Mask("mask", origin, "bool", meaning=meaning)

    def rows_joined(self, node: ast.Call, parts: list[AnyValue | None]) -> Mask | None:
        """``torch.cat([mask, torch.zeros(1, S, dtype=torch.bool)])``: whole rows of one value.

        A 2-D block of zeros (or ones) joined to a mask along its first axis adds rows that
        hold one value on every key, as ``m[2, :] = False`` does (pytorch#103749).  Only a
        block whose two sizes are written and whose dtype is the mask's.
        """
        masks = [part for part in parts if isinstance(part, Mask) and part.kind == "mask"]
        if len(masks) != 1 or any(part is None for part in parts):
            return None
        mask = masks[0]
        block: tuple[ast.AST, float] | None = None
        for part in parts:
            if part is mask:
                continue
            if not (
                isinstance(part, Tensor)
                and part.zero_one
                and part.sizes is not None
                and len(part.sizes) == 2
                and part.dtype is not None
                and part.dtype == (mask.dtype or "bool")
                and isinstance(part.origin.node, ast.Call)
            ):
                return None
            short = (self.qualname(part.origin.node.func) or "").rsplit(".", 1)[-1]
            if short not in ("zeros", "ones"):
                return None
            value = 0.0 if short == "zeros" else 1.0
            if block is not None and block[1] != value:
                return None
            block = block or (part.origin.node, value)
        if block is None:
            return None
        origin = Origin(block[0], "rows of one value joined to the mask, every key")
        return mask.but(
            origin=Origin(node, ""),
            true_set=None,
            triangle_at=None,
            ndim=2,
            empty_row=origin,
            row_value=block[1],
        )

    def row_left_empty(
        self, mask: AnyValue | None, penalty: AnyValue | None, *, where: bool
    ) -> Origin | None:
        """Where ``mask`` was built with a query row that ``penalty`` (-inf) fills entirely.

        ``where``: the penalty goes where the mask is True (masked_fill) or False (torch.where's
        other branch).
        """
        if not (
            isinstance(mask, Mask)
            and mask.kind == "mask"
            and mask.empty_row is not None
            and isinstance(penalty, Const)
            and math.isinf(penalty.value)
            and penalty.value < 0
        ):
            return None
        return mask.empty_row if mask.row_value == (1.0 if where else 0.0) else None

    def nan_guard(self, weights: AnyValue | None) -> AnyValue | None:
        """Weights whose NaN rows are flushed (``nan_to_num``, ``torch.where(w.isnan(), 0, w)``)."""
        if isinstance(weights, Weights) and weights.nan_at is not None:
            self.pending.pop(id(weights.nan_at.node), None)
            return dataclasses.replace(weights, nan_at=None)
        if isinstance(weights, Attended):
            self.pending.pop(id(weights.nan_at.node), None)  # the outputs flushed
            return UNKNOWN
        return None

    def attention_context(
        self, target: AnyValue | None, mask: AnyValue | None, node: ast.Call
    ) -> bool:
        """Whether a fill is of attention scores or a mask, as far as the code or names show."""
        if isinstance(target, (Scores, Mask)) or isinstance(mask, (Mask, Scores)):
            return True
        parts: list[ast.AST] = [arg.value for arg in self.args(node)]
        if isinstance(node.func, ast.Attribute):
            parts.append(node.func.value)
        words = " ".join(name for part in parts for name in names_in(part)).lower()
        return any(word in words for word in ATTENTION_WORDS)

    def fill_read_by_softmax(self, read: ast.AST | None) -> None:
        """A softmax reads the result of a masked_fill directly: its rewrite is safe."""
        candidate = self.fix_candidates.pop(id(read), None) if read is not None else None
        if candidate is None:
            return
        hit, rewrite = candidate
        if hit in self.hits:
            self.hits[self.hits.index(hit)] = dataclasses.replace(hit, fix=rewrite)

    def finfo_fix(self, node: ast.Call, func: ast.AST) -> str | None:
        """The rewrite of an overflowing fill, ``torch.finfo(x.dtype).min``, where it is safe.

        ``x`` is the tensor filled (the receiver of ``x.masked_fill``, the first argument of
        ``torch.masked_fill``), a plain name or attribute; ``torch`` is a name the module binds
        at its top level, unconditionally, so it is bound wherever the fill runs.
        """
        torch = next((local for local, name in self.top_imports.items() if name == "torch"), None)
        if torch is None or not isinstance(func, ast.Attribute):
            return None
        filled: ast.AST = func.value
        if ops.function_form(self.qualname(func)) == "masked_fill":
            args = self.args(node)
            if not args or args[0].keyword is not None:
                return None
            filled = args[0].value
        if not isinstance(filled, (ast.Name, ast.Attribute)):
            return None
        return f"{torch}.finfo({self.code(filled)}.dtype).min"

    def triangle(
        self,
        node: ast.Call,
        qualified: str | None,
        receiver: AnyValue | None,
        values: list[AnyValue | None],
    ) -> AnyValue | None:
        """``tril`` / ``triu``: a triangular mask and its diagonal."""
        func = node.func
        lower = (qualified or "").endswith("tril") or (
            isinstance(func, ast.Attribute) and func.attr.startswith("tril")
        )
        source = receiver
        if qualified is not None:
            source = values[0] if values else None
        diagonal = self.diagonal_of(node)
        if diagonal is None:
            return None
        dtype = source.dtype if isinstance(source, Tensor) else None
        if "bool" in self.code(node):
            dtype = "bool"
        if isinstance(source, Tensor) and source.sizes and len(source.sizes) >= 2:
            am3_causal.alignment_check(
                self, node, source.sizes[-2], source.sizes[-1], diagonal, lower=lower
            )
        triangle = Triangle(lower=lower, diagonal=diagonal)
        name = "tril" if lower else "triu"
        if (
            isinstance(source, Tensor)
            and source.holds is not None
            and (source.holds.value <= PENALTY or source.holds.finfo)
        ):
            # torch.full(shape, -inf).triu(1): a triangle of penalties, an additive mask
            source = Mask(
                "additive",
                source.origin,
                dtype="float",
                finfo_terms=int(source.holds.finfo),
                wide=source.wide,
            )
        if isinstance(source, Mask) and source.kind == "additive":
            return source.but(
                true_set=triangle, origin=Origin(node, ""), triangle_at=Origin(node, "")
            )
        origin = Origin(node, f"{name}(…, diagonal={diagonal})")
        return Mask("mask", origin, dtype=dtype, true_set=triangle, triangle_at=origin)

    def diagonal_argument(self, node: ast.AST) -> ast.AST | None:
        """The diagonal argument of a ``tril`` / ``triu`` / ``tri*_indices`` call, if written."""
        if not isinstance(node, ast.Call):
            return None
        args = self.args(node)
        positional = [arg for arg in args if arg.keyword is None and not arg.star]
        qualified = self.qualname(node.func) or ""
        keyword, first = "diagonal", 1 if qualified else 0  # torch.triu(x, d) / x.triu(d)
        if qualified.endswith("_indices"):
            keyword, first = "offset", 2  # torch.triu_indices(L, S, offset)
        for arg in args:
            if arg.keyword == keyword:
                return arg.value
        return positional[first].value if len(positional) > first else None

    def diagonal_of(self, node: ast.Call) -> int | None:
        """A triangle call's diagonal: 0 where none is written, None where it is not a literal."""
        written = self.diagonal_argument(node)
        return 0 if written is None else int_literal(written)

    def triangle_indices(self, node: ast.Call, lower: bool) -> TupleValue | None:
        """``torch.triu_indices(L, S, offset)``: the rows and the columns of a triangle."""
        offset = self.diagonal_of(node)
        if offset is None:
            return None
        origin = Origin(node, f"{'tril' if lower else 'triu'}_indices(…, offset={offset})")
        triangle = Triangle(lower=lower, diagonal=offset)
        return TupleValue(
            origin, (TriangleIndex(origin, triangle, 0), TriangleIndex(origin, triangle, 1))
        )

    def indexed_triangle(self, index: ast.AST) -> Mask | None:
        """``x[..., rows, cols]`` with a triangle's rows and columns: that triangle as a mask."""
        if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
            return None
        *leading, rows_node, cols_node = index.elts
        if not all(
            (
                isinstance(element, ast.Slice)
                and element.lower is element.upper is element.step is None
            )
            or (isinstance(element, ast.Constant) and element.value is Ellipsis)
            for element in leading
        ):
            return None
        rows, cols = self.ev(rows_node), self.ev(cols_node)
        if not (
            isinstance(rows, TriangleIndex)
            and isinstance(cols, TriangleIndex)
            and rows.origin.node is cols.origin.node
            and {rows.axis, cols.axis} == {0, 1}
        ):
            return None
        triangle = rows.triangle
        if rows.axis == 1:  # x[..., cols, rows]: the transposed triangle
            triangle = Triangle(not triangle.lower, -triangle.diagonal)
        return Mask("mask", rows.origin, dtype="bool", true_set=triangle, triangle_at=rows.origin)

    def corner_cut(
        self, triangle: Triangle, rows: ast.AST, columns: ast.AST, node: ast.AST
    ) -> None:
        """``bias[:, :, :T, :S]``: a triangle cut from its top-left corner, laid on T × S there."""
        cuts = []
        for element in (rows, columns):
            if not (
                isinstance(element, ast.Slice)
                and element.lower is None
                and element.step is None
                and element.upper is not None
            ):
                return
            cuts.append(self.ev(element.upper))
        height, width = cuts
        if isinstance(height, Dim) and isinstance(width, Dim):
            am3_causal.alignment_check(
                self, node, height, width, triangle.diagonal, lower=triangle.lower
            )

    def created_dtype(self, node: ast.Call, *, like: bool) -> Dtype | None:
        """The dtype a constructor call gives (``dtype=`` or its default)."""
        for arg in self.args(node):
            if arg.keyword == "dtype":
                text = self.code(arg.value)
                if "bool" in text:
                    return "bool"
                if any(word in text for word in ("long", "int", "uint8")):
                    return "int"
                return "float" if "float" in text or "half" in text else None
        return None if like else "float"

    def convert(self, mask: Mask, node: ast.Call) -> AnyValue | None:
        """``mask.to(dtype)`` / ``mask.type(dtype)``: the mask's new dtype."""
        text = " ".join(self.code(arg.value) for arg in self.args(node))
        if "bool" in text:
            return retype(mask, "bool", Origin(node, ""))
        if any(word in text for word in ("float", "half", "bfloat16", "double", "dtype")):
            return retype(mask, "float", Origin(node, ""))
        if any(word in text for word in ("long", "int", "uint8")):
            return retype(mask, "int", Origin(node, ""))
        return mask

    def unknown_mask(self, func: ast.AST) -> Mask | None:
        """``mask`` of ``mask.repeat_interleave(H, dim=0)`` where nothing is known of it.

        A name with "mask" in it, not reassigned from what the pass cannot read: a mask of
        unknown dtype and meaning, whose tiling for the heads alone is then checked.
        """
        if not isinstance(func, ast.Attribute):
            return None
        return self.named_unknown_mask(func.value)

    def named_unknown_mask(self, node: ast.AST) -> Mask | None:
        """A name with "mask" in it that nothing else is known of: a mask of unknown meaning."""
        if not isinstance(node, ast.Name):
            return None
        name = node.id
        if "mask" not in name.lower() or self.lookup(name) is UNKNOWN:
            return None
        return Mask("mask", Origin(node, f"`{name}`, a mask by its name"))

    def mask_per_head(
        self, mask: Mask, method: str | None, node: ast.Call, args: list[Arg]
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
            merged = len(sizes) == 3 and (
                int_literal(sizes[0]) == -1 or head_counts.counts(sizes[0])
            )
            if method == "flatten":
                # flatten(0, 1): the first two axes merged, the others kept
                merged = [int_literal(size) for size in sizes] == [0, 1]
            if merged and mask.head_axes == ("B", "H", "L", "S"):
                return mask.but(head_axes=None, interleaved=origin, ndim=3)
            if merged and mask.head_axes == ("H", "B", "L", "S"):
                return mask.but(head_axes=None, repeated=origin, ndim=3)
            return None  # the reshape below reads it (and forgets the head axes)
        return None  # eq, ne, bool, contiguous...: the axes stay, the other readings apply

    def tiled_list(self, node: ast.AST | None) -> Mask | None:
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
                mask = self.ev(listed.elts[0])
                if mask is None:
                    mask = self.named_unknown_mask(listed.elts[0])  # torch.cat([align_mask] * H)
                # a triangle is the same for every batch item: any order of copies is right
                return mask if isinstance(mask, Mask) and mask.true_set is None else None
        return None

    def repeat(self, mask: Mask, node: ast.Call) -> Mask:
        """``mask.repeat(H, 1, 1)`` of a 3-D mask: tiled head-major.

        A triangle is the same for every batch item: no order of its copies can be wrong.
        """
        if mask.true_set is not None:
            return mask
        literals = [int_literal(arg.value) for arg in self.args(node)]
        if mask.ndim == 3 and len(literals) == 3 and literals[0] != 1 and literals[1:] == [1, 1]:
            return mask.but(repeated=Origin(node, ""))
        if self.tiles_heads(node):
            return mask.but(repeated=Origin(node, ""))
        return mask

    def tiles_heads(self, node: ast.Call) -> bool:
        """``x.repeat(num_heads, 1, 1)``: three sizes, the first a head count by its name."""
        args = self.args(node)
        if len(args) != 3 or any(arg.keyword or arg.star for arg in args):
            return False
        if [int_literal(arg.value) for arg in args[1:]] != [1, 1]:
            return False
        return last_name(args[0].value) is not None and head_counts.counts(args[0].value)

    def hand_written_softmax(
        self,
        node: ast.Call,
        method: str | None,
        qualified: str | None,
        receiver: AnyValue | None,
        args: list[Arg],
        values: list[AnyValue | None],
    ) -> AnyValue | None:
        """The parts of ``exp(s - s.amax(-1, keepdim=True))`` / its ``sum(-1, keepdim=True)``.

        A reduction of the scores (max, amax, logsumexp), kept through ``.detach()`` and through
        ``torch.maximum`` / ``clamp`` with anything, is a per-row constant; ``exp`` of scores is
        a numerator, its ``sum`` over one axis the denominator (the division is the softmax).
        """
        origin = Origin(node, "")
        subject = values[0] if qualified and values else receiver
        short = (
            qualified.rsplit(".", 1)[-1] if qualified and qualified.startswith("torch.") else None
        )
        name = short if qualified else method
        if name in _REDUCTIONS and isinstance(subject, Scores):
            return RowConst(origin)
        if method == "detach" and isinstance(receiver, RowConst):
            return receiver
        if name in ("maximum", "minimum", "clamp", "clamp_min", "clamp_max") and any(
            isinstance(value, RowConst) for value in (receiver, *values)
        ):
            return RowConst(origin)
        if name == "exp" and isinstance(subject, Scores):
            return Exp(origin, subject)
        if method == "sum" and isinstance(receiver, Exp):
            dim_arg = next(
                (
                    a
                    for i, a in enumerate(args)
                    if a.keyword == "dim" or (a.keyword is None and i == 0)
                ),
                None,
            )
            if dim_arg is not None:
                return ExpSum(origin, receiver, int_literal(dim_arg.value), dim_arg.value)
        return None

    def top_k(self, scores: Scores) -> None:
        """``scores.topk(k)``: the keys each query keeps, read from masked scores.

        A 0/1 mask added to the scores (AM201) moves them by one, so it forbids nothing there
        either.  Other findings that wait for a softmax (a fill that overflows float16) stay
        waiting: -inf ranks last, as a mask means.
        """
        for pending in scores.pending:
            if isinstance(pending, Hit) and pending.code == "AM201" and pending not in self.hits:
                self.hits.append(pending)

    def mask_mod(self, node: ast.AST) -> None:
        """A ``flex_attention`` ``mask_mod``: the triangle its comparison allows."""
        function: FunctionNode | ast.Lambda | None = None
        if isinstance(node, ast.Lambda):
            function = node
        elif isinstance(node, ast.Name):
            function = self.function_named(node.id, method=False)
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
        am1_polarity.allowed_sink(self, mask, body, "flex_attention's mask_mod (True = may attend)")

    # -- sinks -----------------------------------------------------------------------------------


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


def _padding_name_as_attn_mask(argument: apis.Argument, value: AnyValue | None) -> bool:
    """Whether a padding mask by its name goes where an ``attn_mask`` is read.

    A ``[B, S]`` padding mask cannot be an ``attn_mask`` (``[L, S]`` or ``[B·H, L, S]``): where
    it goes contradicts its name.
    """
    return (
        argument.role == "mask" and isinstance(value, Mask) and value.by_name and value.key_padding
    )


def _guard(test: ast.AST) -> Guard | None:
    """What an ``if`` test says about a name's dtype, or None.

    ``(name, "bool" | "float", positive)`` for ``name.dtype == torch.bool`` (``is``, ``!=``,
    ``is not``, ``not …``) and ``name.is_floating_point()``; ``(name, "none", positive)`` for
    ``name is None`` (``is not``).
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _guard(test.operand)
        return None if inner is None else (inner[0], inner[1], not inner[2])
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        operator = test.ops[0]
        if (
            isinstance(left, ast.Name)
            and is_none(right)
            and isinstance(operator, (ast.Is, ast.IsNot))
        ):
            return (left, "none", isinstance(operator, ast.Is))
        if isinstance(right, ast.Attribute) and right.attr == "dtype":
            left, right = right, left
        if (
            isinstance(left, ast.Attribute)
            and left.attr == "dtype"
            and isinstance(left.value, ast.Name)
            and isinstance(right, ast.Attribute)
            and right.attr == "bool"
        ):
            if isinstance(operator, (ast.Eq, ast.Is)):
                return (left.value, "bool", True)
            if isinstance(operator, (ast.NotEq, ast.IsNot)):
                return (left.value, "bool", False)
        return None
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr == "is_floating_point"
    ):
        subject = test.func.value
        if not test.args and isinstance(subject, ast.Name):
            return (subject, "float", True)
        if len(test.args) == 1 and isinstance(test.args[0], ast.Name):
            return (test.args[0], "float", True)
    return None


SPECIALISE_DEPTH = 2
"""How deep a chain of helpers is read with its callers' values (a caller, its helper, and the
helper that one calls with what it was given)."""


@dataclass(frozen=True)
class _Sites:
    """The module's functions by id, and for each the calls of it the module shows."""

    functions: dict[int, FunctionNode]
    calls: dict[int, set[int]]


def _call_sites(tree: ast.Module) -> _Sites:
    """Where each function of the module is called, as far as the text shows every call.

    A function by its name (``helper(...)``); a method by ``self.method(...)`` within its
    class.  A module's ``forward`` also where its class's only instance in the module,
    ``self.attr = Class(...)``, is called (``self.attr(...)``, ``self.attr.forward(...)``).
    No entry (its calls are not all known) for a function whose name is also used otherwise
    (handed to ``checkpoint`` or ``partial``, assigned), for the methods of a class another
    class of the module extends or that ``super()`` reaches, and for a ``forward`` whose class
    is instantiated more than once or other than into ``self.attr`` (a list of layers).
    """
    functions: dict[int, FunctionNode] = {}
    owner: dict[int, ast.ClassDef] = {}
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[id(node)] = node
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                owner[id(statement)] = node
    extended = {
        base.id
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
        if isinstance(base, ast.Name)
    }
    by_name: dict[str, list[ast.Call]] = {}
    made: dict[str, list[int]] = {}
    held: dict[int, str] = {}
    escaped: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                by_name.setdefault(func.id, []).append(node)
                made.setdefault(func.id, []).append(id(node))
            elif isinstance(func, ast.Attribute) and _self_attribute(func):
                by_name.setdefault(func.attr, []).append(node)
            elif (
                isinstance(func, ast.Attribute)
                and func.attr == "forward"
                and isinstance(func.value, ast.Attribute)
                and _self_attribute(func.value)
            ):
                by_name.setdefault(func.value.attr, []).append(node)
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "super"
            ):
                escaped.add(func.attr)  # super().forward(...): called from a subclass
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if isinstance(node, ast.Attribute) and not _self_attribute(node):
                continue
            parent = parents.get(id(node))
            called = isinstance(parent, ast.Call) and parent.func is node
            # `self.decoder.layers`, `self.decoder.forward(...)`: a use of the instance;
            # `for layer in self.layers`, `self.layers[i](...)`: its layers, followed below
            member = isinstance(parent, (ast.Attribute, ast.Subscript)) or (
                isinstance(parent, ast.For) and parent.iter is node
            )
            if not called and not member:
                escaped.add(name)  # checkpoint(self.block, x), partial(helper), f = helper
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and _self_attribute(node.targets[0])
            and isinstance(node.value, ast.Call)
        ):
            held[id(node.value)] = node.targets[0].attr
            listed = node.value.args[0] if node.value.args else None
            if isinstance(listed, (ast.ListComp, ast.GeneratorExp)):
                held[id(listed.elt)] = f"{node.targets[0].attr}[]"
            elif isinstance(listed, (ast.List, ast.Tuple)):
                for element in listed.elts:
                    held[id(element)] = f"{node.targets[0].attr}[]"
        if (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Attribute)
            and _self_attribute(node.iter)
            and isinstance(node.target, ast.Name)
        ):
            layer = node.target.id
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and inner.id == layer and inner is not node.target:
                    above = parents.get(id(inner))
                    if isinstance(above, ast.Call) and above.func is inner:
                        by_name.setdefault(f"{node.iter.attr}[]", []).append(above)
                    else:
                        escaped.add(f"{node.iter.attr}[]")  # the layer handed on
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Subscript)
            and isinstance(node.func.value, ast.Attribute)
            and _self_attribute(node.func.value)
        ):
            by_name.setdefault(f"{node.func.value.attr}[]", []).append(node)  # self.layers[i](x)
    calls: dict[int, set[int]] = {}
    for key, function in functions.items():
        cls = owner.get(key)
        if function.name in escaped or (cls is not None and cls.name in extended):
            continue
        found = {
            id(call)
            for call in by_name.get(function.name, [])
            if cls is None or _inside(call, cls) or function.name == "forward"
        }
        if function.name == "forward" and cls is not None:
            instances = made.get(cls.name, [])
            attribute = held.get(instances[0], "") if len(instances) == 1 else ""
            if not attribute or {attribute, attribute.removesuffix("[]")} & escaped:
                continue
            found |= {id(call) for call in by_name.get(attribute, [])}
        calls[key] = found
    return _Sites(functions, calls)


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


def _pairwise(left: ast.AST, right: ast.AST) -> bool:
    """``x[:, :, None]`` against ``x[:, None, :]``: one tensor, a new axis in another place."""
    if not (isinstance(left, ast.Subscript) and isinstance(right, ast.Subscript)):
        return False
    if ast.dump(left.value) != ast.dump(right.value):
        return False
    sides = [
        side.slice.elts if isinstance(side.slice, ast.Tuple) else [side.slice]
        for side in (left, right)
    ]
    if len(sides[0]) != len(sides[1]):
        return False
    new = [[is_none(element) for element in side] for side in sides]
    if new[0] == new[1] or sum(new[0]) != 1 or sum(new[1]) != 1:
        return False
    return all(
        isinstance(element, ast.Slice) or is_none(element) for side in sides for element in side
    )


def _bare_name(node: ast.AST) -> str | None:
    """``m``, also as ``m.float()`` / ``m.bool()`` / ``m.to(x.dtype)``: the name (same zeros)."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("float", "half", "bool", "to", "type_as", "type")
    ):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


def _zero_test(condition: ast.AST) -> tuple[str, int] | None:
    """``(m, branch)``: the name a condition tests and the torch.where branch picked where m is 0.

    ``m == 0``, ``m.eq(0)``, ``~m``, ``not``-ing calls pick branch 1; ``m != 0``, ``m.ne(0)``,
    ``m`` itself and ``m.bool()`` pick branch 2 there.
    """
    zero = (0, 0.0, False)
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1:
        left, right = condition.left, condition.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
        name = _bare_name(left)
        if name is None or not (isinstance(right, ast.Constant) and right.value in zero):
            return None
        if isinstance(condition.ops[0], ast.Eq):
            return name, 1
        if isinstance(condition.ops[0], ast.NotEq):
            return name, 2
        return None
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, (ast.Invert, ast.Not)):
        name = _bare_name(condition.operand)
        return (name, 1) if name is not None else None
    if isinstance(condition, ast.Call) and isinstance(condition.func, ast.Attribute):
        method, receiver = condition.func.attr, condition.func.value
        operands = list(condition.args)
        if isinstance(receiver, ast.Name) and receiver.id == "torch" and operands:
            receiver = operands.pop(0)  # torch.eq(m, 0), torch.logical_not(m)
        literal = [a.value for a in operands if isinstance(a, ast.Constant)]
        if method == "logical_not" and not operands:
            name = _bare_name(receiver)
            return (name, 1) if name is not None else None
        if method in ("eq", "ne") and len(operands) == 1 and literal and literal[0] in zero:
            name = _bare_name(receiver)
            return (name, 1 if method == "eq" else 2) if name is not None else None
        if method == "bool" and not operands:
            name = _bare_name(receiver)
            return (name, 2) if name is not None else None
        return None
    if isinstance(condition, ast.Name):
        return condition.id, 2
    return None


def _row_guard(condition: str) -> bool:
    """A condition that finds the NaN rows: ``w.isnan()``, or the mask's rows with no key."""
    return "isnan" in condition or ".any(" in condition or ".all(" in condition


def _says_what_it_is(value: object) -> bool:
    """A mask whose meaning the code shows: allowed or forbidden, a triangle, or additive."""
    return isinstance(value, Mask) and (
        value.meaning is not None or value.true_set is not None or value.kind == "additive"
    )


def _self_attribute(node: ast.Attribute) -> bool:
    """``self.name``."""
    return isinstance(node.value, ast.Name) and node.value.id == "self"


BY_NAME = ("AM103", "AM104", "AM105", "AM702")
"""The rules whose evidence is a name (warnings): what the callers pass may contradict it."""

POLARITY = ("AM101", "AM102", "AM103", "AM104", "AM105")
"""The rules about which convention a mask has: where caller and helper disagree on it, the
finding goes to the caller (the helper is right for the masks it was written for).  Other
rules are about an operation, and stay where it is written."""


def _informative(value: object) -> bool:
    """Whether a caller's value tells a helper more than its parameter's name would."""
    if isinstance(value, (Mask, KeyCat)):
        return True
    if isinstance(value, Scores):
        return value.penalised is not None  # what a helper's softcap does to the penalty
    if isinstance(value, Tensor):
        return value.dtype == "int" or value.sizes is not None or value.holds is not None
    if isinstance(value, Transposed):
        return value.sizes is not None  # heads split off: the scores' rank
    return isinstance(value, Dim) and (
        value.role is not None or value.value is not None or value.cache is not None
    )


def _inside(node: ast.AST, function: FunctionNode | ast.ClassDef) -> bool:
    """Whether a node lies in a function's (or class's) body (a caller's line does not)."""
    line: int = node.lineno  # type: ignore[attr-defined]
    return function.lineno <= line <= (function.end_lineno or function.lineno)


def _hoisted(body: Sequence[ast.stmt]) -> dict[str, FunctionNode]:
    """The functions a block defines at its top level, by name (the last definition wins)."""
    return {
        statement.name: statement
        for statement in body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _conjuncts(test: ast.AST) -> list[Guard]:
    """What each term of ``a and b and …`` says (all of them hold where the test is true)."""
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return [guard for guard in map(_guard, terms) if guard is not None]


def _leaves(body: Sequence[ast.stmt]) -> bool:
    """Whether a block always ends in ``return`` or ``raise``."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


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


_REDUCTIONS = ("max", "amax", "logsumexp")


def _a_row(index: ast.AST, sizes: tuple[Dim, ...] | None) -> bool:
    """``[0, 0, 2, :]``, ``[..., 2, :]``, ``[1, 0]`` of 3-D sizes: one query row, every key.

    The axis before the keys is picked by a number or a name, the keys' axis is whole (written
    ``:`` or left out where the sizes show it).
    """
    elements: list[ast.AST] = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    ellipsis = [isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements]
    if any(ellipsis[1:]) or any(isinstance(e, ast.Starred) or is_none(e) for e in elements):
        return False
    if not ellipsis[0] and sizes is not None and len(elements) < len(sizes):
        elements += [ast.Slice()] * (len(sizes) - len(elements))
    if len(elements) < 2 or not _whole(elements[-1]):
        return False
    picked = elements[-2]
    return int_literal(picked) is not None or isinstance(picked, ast.Name)


def _moves_the_last_axis(elements: list[ast.expr]) -> bool:
    """``[:, None, :, None]``, ``[:, :, None]``: at most two whole axes, a new one last."""
    return (
        len(elements) >= 2
        and is_none(elements[-1])
        and _whole(elements[-2])
        and all(_whole(element) or is_none(element) for element in elements)
        and sum(1 for element in elements if _whole(element)) <= 2
    )


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


def _returned(returned: list[AnyValue | None]) -> AnyValue | None:
    """What every ``return`` of a function agrees on (None when nothing is known)."""
    if not returned:
        return None
    value = join([{"r": UNKNOWN if one is None else one} for one in returned]).get("r")
    return None if isinstance(value, (Unknown, Param)) else value


def _fold(left: object, right: object, operator: ast.operator, node: ast.AST) -> Const | None:
    """Two constants combined: ``1 / 2``, ``-1e4 * 2``, ``torch.finfo(t).min / 2``.

    A fraction of a dtype's own range is still relative to that dtype (it fits it); a full
    ``finfo.min`` plus a small number is still ``finfo.min``.
    """
    if not isinstance(left, Const) or not isinstance(right, Const):
        return None
    a, b = left.value, right.value
    try:
        if isinstance(operator, ast.Add):
            value = a + b
        elif isinstance(operator, ast.Sub):
            value = a - b
        elif isinstance(operator, ast.Mult):
            value = a * b
        elif isinstance(operator, ast.Div):
            value = a / b
        elif isinstance(operator, ast.Pow):
            value = float(a**b)
        else:
            return None
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, complex) or math.isnan(value):
        return None
    ranged = [c for c in (left, right) if c.finfo or c.relative]
    if not ranged:
        return Const(value, Origin(node, "a constant"))
    plain = [c for c in (left, right) if not (c.finfo or c.relative)]
    additive = isinstance(operator, (ast.Add, ast.Sub))
    unchanged = all(
        (additive and abs(c.value) < 1e30) or (not additive and c.value == 1.0) for c in plain
    )
    full = unchanged and all(c.finfo for c in ranged) and len(ranged) == 1
    return Const(value, Origin(node, "a constant"), finfo=full, relative=not full)


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


def _unknown_condition(value: object, node: ast.AST, branches: list[ast.expr]) -> bool:
    """A condition nothing is known of (``mask``, ``mask.bool()``), not a test of the scores.

    ``torch.where(s > 0, s, 0.0)`` is a threshold: a condition that compares, or reads what a
    branch reads, is not a mask.
    """
    return (
        (value is None or isinstance(value, Param))
        and not isinstance(node, (ast.Compare, ast.BoolOp))
        and not identifiers(node) & set().union(*map(identifiers, branches))
    )


def _named_mask(node: ast.AST, lookup: Callable[[str], object]) -> bool:
    """A parameter named a mask (``mask``, ``attn_mask``) that nothing else says anything of.

    Multiplied into scores, it is 0/1 or Boolean (an additive mask is added, a scale is not
    named a mask): the masked scores become 0.  A tensor the function makes is what the code
    says it is, not what its name does.
    """
    while isinstance(node, ast.Subscript) or (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("unsqueeze", "view", "reshape", "float", "to", "bool", "expand")
    ):
        # seq_mask[:, None, None, :], mask.unsqueeze(1).float(): the parameter, its axes moved
        if isinstance(node, ast.Subscript):
            node = node.value
        else:
            assert isinstance(node, ast.Call)
            assert isinstance(node.func, ast.Attribute)
            node = node.func.value
    return (
        isinstance(node, ast.Name)
        and isinstance(lookup(node.id), Param)
        and node.id.lower().strip("_").endswith("mask")
    )


def _float32(func: ast.AST) -> bool:
    """``x.float().masked_fill(…)``: the tensor filled is float32 (or float64) by construction."""
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return False
    inner = func.value.func
    return isinstance(inner, ast.Attribute) and inner.attr in ("float", "double")


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


def _key_columns(index: ast.AST) -> bool:
    """``[:, j]``, ``[:, -2:]``, ``[..., j]``: every axis but the last whole, the last narrowed."""
    if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
        return False
    *rows, last = index.elts
    whole = all(
        (isinstance(axis, ast.Slice) and axis.lower is axis.upper is axis.step is None)
        or (isinstance(axis, ast.Constant) and axis.value is Ellipsis)
        for axis in rows
    )
    narrowed = int_literal(last) is not None or (
        isinstance(last, ast.Slice)
        and last.step is None
        and (last.lower is not None or last.upper is not None)
        and all(int_literal(bound) is not None for bound in (last.lower, last.upper) if bound)
    )
    return whole and narrowed


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
    if contracted not in parts[1] or contracted in output or not keys:
        return None
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


_COMPARISONS: dict[str, type[ast.cmpop]] = {
    "lt": ast.Lt,
    "le": ast.LtE,
    "gt": ast.Gt,
    "ge": ast.GtE,
    "less": ast.Lt,
    "less_equal": ast.LtE,
    "greater": ast.Gt,
    "greater_equal": ast.GtE,
}
"""Tensor methods that compare, as the operator they stand for."""

_MIRRORED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
}
"""``a < b`` is ``b > a``."""

_TRIANGLES: dict[type[ast.cmpop], Triangle] = {
    ast.GtE: Triangle(True, 0),  # i >= j: tril
    ast.Gt: Triangle(True, -1),  # i > j: tril(-1)
    ast.LtE: Triangle(False, 0),  # i <= j: triu
    ast.Lt: Triangle(False, 1),  # i < j: triu(1), the future
}
"""Where ``rows OP cols`` (query position OP key position) is True."""

_KEEPS_POSITIONS = frozenset(
    (
        *("to", "cuda", "cpu", "long", "int", "contiguous", "clone", "detach", "type_as"),
        *("expand", "expand_as", "repeat"),
    )
)
"""Methods that leave which axis the positions lie on as it was."""


def _positions_subscript(
    positions: Positions, elements: Sequence[ast.expr], node: ast.AST
) -> Positions | None:
    """Positions subscripted: which axis they are on now.

    ``i[None, :]`` / ``i[None]``: on the key axis; ``i[:, None]`` / ``i[..., None]``: on
    the query axis; ``i[:n]``: still flat (``i[1:]`` shifted by one).  Anything else: unknown.
    """
    if not positions.flat:
        return None
    origin = Origin(node, "")
    if len(elements) == 1 and isinstance(elements[0], ast.Slice) and elements[0].step is None:
        start = elements[0].lower
        shift = 0 if start is None else int_literal(start)
        offset = None if shift is None or positions.offset is None else positions.offset + shift
        return dataclasses.replace(positions, origin=origin, offset=offset)
    if len(elements) == 1 and is_none(elements[0]):
        return Positions(origin, "cols", positions.offset)
    if len(elements) == 2 and is_none(elements[0]) and _whole(elements[1]):
        return Positions(origin, "cols", positions.offset)
    if (
        len(elements) == 2
        and is_none(elements[1])
        and (
            _whole(elements[0])
            or (isinstance(elements[0], ast.Constant) and elements[0].value is Ellipsis)
        )
    ):
        return Positions(origin, "rows", positions.offset)
    return None


def _shifted(
    left: object,
    right: object,
    operator: ast.operator,
    left_node: ast.AST,
    right_node: ast.AST,
    origin: Origin,
) -> Positions | Relative | None:
    """``i + 3``, ``i - offset``: the same positions, moved.

    By an unknown amount if the shift is no integer literal.
    """
    if isinstance(operator, ast.FloorDiv) and isinstance(left, Positions):
        # i // chunk: a block's index, compared as positions; no triangle is known of it
        return dataclasses.replace(left, origin=origin, offset=None)
    if not isinstance(operator, (ast.Add, ast.Sub)):
        return None
    if isinstance(left, Positions) and isinstance(right, Positions):
        if isinstance(operator, ast.Sub) and left.axis != right.axis:
            return Relative(origin, left, right)  # j - i: how far a key is from its query
        return None
    positions, other = (left, right_node) if isinstance(left, Positions) else (right, left_node)
    assert isinstance(positions, Positions)
    if isinstance(operator, ast.Sub) and positions is right:
        return None  # n - i counts down
    shift = int_literal(other)
    offset = None
    if shift is not None and positions.offset is not None:
        offset = positions.offset + (shift if isinstance(operator, ast.Add) else -shift)
    return dataclasses.replace(positions, origin=origin, offset=offset)


def _column_base(node: ast.AST) -> ast.AST:
    """The tensor that ``x[:, None]`` / ``x.unsqueeze(1)`` / ``x.view(-1, 1)`` makes a column."""
    if isinstance(node, ast.Subscript):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value
    return node


def _a_column(node: ast.AST) -> bool:
    """One value per batch item on a new trailing axis.

    ``lengths[:, None]``, ``lengths.unsqueeze(1)`` (or ``-1``), ``lengths.view(-1, 1)``.
    """
    if isinstance(node, ast.Subscript):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return len(elements) == 2 and is_none(elements[1]) and _whole(elements[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        sizes = [int_literal(arg) for arg in node.args]
        if node.keywords:
            return False
        if ops.moves(node.func.attr, "insert"):
            return sizes in ([1], [-1])
        if ops.moves(node.func.attr, "reshape"):
            return sizes == [-1, 1]
    return False


PAIRWISE = "one per-position mask on both the query and the key axis"
"""The reason of a mask row left empty by :meth:`Interpreter.pairwise` (not by one index)."""


def _zeros(node: ast.AST, qualname: Callable[[ast.AST], str | None]) -> bool:
    """``torch.zeros_like(x)`` / ``torch.zeros(...)`` / ``x.new_zeros(...)``: a tensor of 0."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("zeros_like", "new_zeros"):
        return qualname(node.func) in (None, "torch.zeros_like")
    return qualname(node.func) in ("torch.zeros", "torch.zeros_like")


def _over_its_key_sum(node: ast.AST, names: set[str]) -> bool:
    """``w / w.sum(dim=-1, keepdim=True)`` (or ``.sum(-1)``) for ``w`` one of ``names``."""
    if not (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Name)
        and node.left.id in names
        and isinstance(node.right, ast.Call)
        and isinstance(node.right.func, ast.Attribute)
        and node.right.func.attr == "sum"
        and last_name(node.right.func.value) == node.left.id
    ):
        return False
    dims = [*node.right.args, *(k.value for k in node.right.keywords if k.arg == "dim")]
    return any(int_literal(dim) == -1 for dim in dims)


def _major(side: object) -> heads.Major | None:
    """The row order of a query or key whose heads were merged into its first axis."""
    if isinstance(side, (Tensor, Transposed)):
        return side.major
    return None


def _scaled(value: object) -> bool:
    """A tensor multiplied or divided by something: a query or key scaled before ``q @ kᵀ``."""
    return isinstance(value, ScaledTensor) or (isinstance(value, Transposed) and value.scaled)
