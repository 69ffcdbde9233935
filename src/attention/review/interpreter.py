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

This module knows Python: statements and expressions.  The names, branches and narrowing on
tests are :mod:`~attention.review.state`'s; calls across the checked code's functions
:mod:`~attention.review.interproc`'s; the abstract values and their join
:mod:`~attention.review.values`'.  What a torch operation makes of a value is a reading of
:mod:`~attention.review.ops` (:mod:`~attention.review.ops.registry` files them by name and
kind of value), what an attention API does with a mask is its row of
:mod:`~attention.review.apis`, and the rules judge what the pass emits
(:mod:`~attention.review.events`), each beside its examples in :mod:`~attention.review.rules`.

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
import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final

from attention.review import (
    api_calls,
    apis,
    extended_masks,
    head_counts,
    interproc,
    ops,
    rules,
    state,
)
from attention.review.interproc import (
    _hoisted,
)
from attention.review.ops import (
    arithmetic,
    calls,
    comparisons,
    constructors,
    fills,
    indexing,
    registry,
)
from attention.review.project import Project
from attention.review.provenance import (
    Const,
    Mask,
    Module,
    Origin,
    Scores,
    Weights,
    mask_from_name,
)
from attention.review.roles import (
    _parameters,
    _role,
)
from attention.review.state import (
    _conjuncts,
    _guard,
    _leaves,
)
from attention.review.syntax import (
    Arg,
    FunctionNode,
    Source,
    call_args,
    last_name,
    string_literal,
)
from attention.review.values import (
    NONE,
    UNKNOWN,
    AnyValue,
    Dim,
    Guard,
    Hit,
    Instance,
    Layers,
    Param,
    Partial,
    ScaledTensor,
    Tensor,
    TupleValue,
    _narrowest_overflowed,
    join,
)
from attention.review.widths import Widths

__all__ = ["Hit", "Interpreter"]

SUBSCRIBED: Final = rules.FAMILIES
"""Every rule family, imported here so that each has subscribed to the events it judges
before the pass emits one."""


class Interpreter:
    """The state of one pass: imports, names per scope, the hits so far."""

    def __init__(
        self, source: Source, project: Project | None = None, path: Path | None = None
    ) -> None:
        self.source = source
        self.project = project
        self.path = path
        self.foreign: dict[str, tuple[str, str, int]] = {}
        # every name a `from M import N` made, relative imports too: (M, N)
        self.sources: dict[str, tuple[str, str]] = {}
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
        self.citing: tuple[str, ...] = ()  # the rows of the API argument being judged
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
        self.widths: dict[int, Widths] = {}  # per class: its model width (widths.py)
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
        found = Hit(code, node, self.code(node), expects, tuple(facts), fix, narrow, self.citing)
        self.hits.append(found)
        return found

    @contextlib.contextmanager
    def cited(self, rows: tuple[str, ...]) -> Iterator[None]:
        """Judge a value handed to an API argument whose rows are ``rows``.

        The hits made inside carry them (:attr:`Hit.rows`).
        """
        outer, self.citing = self.citing, rows
        try:
            yield
        finally:
            self.citing = outer

    # -- statements ------------------------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        """Read a whole module; its functions are known before the first line is read."""
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    # the name each top-level import binds, and the module it stands for
                    # (`import a.b` binds a, to module a)
                    top = alias.name.split(".")[0]
                    bound = alias.asname or top
                    self.top_imports[bound] = alias.name if alias.asname else top
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
            interproc.drop_contradicted_names(self, tree)
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
                state.bind(self, target, value)
        elif isinstance(node, ast.Assign) and self.unpacked_shape(node):
            pass
        elif isinstance(node, ast.Assign):
            value = self.ev(node.value)
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    fills.index_fill(self, target, value, node.value)
                state.bind(self, target, value)
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
                state.bind(self, call.func.value, value)
            elif (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr.endswith("_")
            ):
                fills.not_zero_one(self, call.func.value)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                value = self.ev(node.value)
                if self.returns:
                    self.returns[-1].append(value)
        elif isinstance(node, ast.AugAssign):
            state.bind(
                self, node.target, arithmetic.binary(self, node.target, node.op, node.value, node)
            )
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                state.bind(self, node.target, self.ev(node.value))
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
                state.bind(self, node.target, layer)
            state.branches(self, [self.block(node.body)], exhaustive=False)
            if self.loops < 2:
                # a second pass sees what the first one left (`k = torch.cat([k, new])`)
                self.loops += 1
                try:
                    state.branches(self, [self.block(node.body)], exhaustive=False)
                finally:
                    self.loops -= 1
            self.statements(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.ev(item.context_expr)
            self.statements(node.body)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            blocks = [node.body, *(handler.body for handler in node.handlers)]
            state.branches(self, [self.block(body) for body in blocks], exhaustive=False)
            self.statements(node.orelse)
            self.statements(node.finalbody)
        elif isinstance(node, ast.Match):
            self.ev(node.subject)
            state.branches(self, [self.block(case.body) for case in node.cases], exhaustive=False)
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
            state.bind(self, name, dim)
        if (
            isinstance(tensor_node, ast.Name)
            and (tensor is None or isinstance(tensor, Param))
            and mask_from_name(tensor_node.id, tensor_node) is None
        ):
            # the code itself says how many axes x has
            state.bind(self, tensor_node, Tensor(Origin(tensor_node, ""), sizes=tuple(sizes)))
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
            self.sources[local] = (node.module or "", alias.name)
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
                state.narrow(self, each, holds=True)
            self.statements(node.body)

        def otherwise() -> None:
            state.narrow(self, guard, holds=False)
            self.statements(node.orelse)

        if not node.orelse and _leaves(node.body):
            # `if m.dtype != torch.bool: raise …`: after the if, the test was false
            names, attributes = dict(self.scopes[-1]), dict(self.attributes[-1])
            then()
            self.scopes[-1], self.attributes[-1] = names, attributes
            state.narrow(self, guard, holds=False)
            if len(self.scopes) == 1:
                self.globals = self.scopes[0]
        else:
            before = dict(self.scopes[-1])
            state.branches(self, [then, otherwise], exhaustive=True)
            for name in _narrowed_names([guard, *conjuncts]):
                # a test narrowed the name on each side, nothing assigned it: after the if
                # it is what it was before
                if name in before and not _assigns([*node.body, *node.orelse], name):
                    self.scopes[-1][name] = before[name]

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

    def block(self, body: Sequence[ast.stmt]) -> Callable[[], None]:
        """Reading ``body``, to run later as one branch."""
        return lambda: self.statements(body)

    # -- expressions -----------------------------------------------------------------------------

    def ev(self, node: ast.AST) -> AnyValue | None:
        """Evaluate an expression to what it is known to be (None: nothing is)."""
        if isinstance(node, ast.Name):
            found = state.lookup(self, node.id)
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
            return arithmetic.binary(self, node.left, node.op, node.right, node)
        if isinstance(node, ast.UnaryOp):
            return arithmetic.unary(self, node)
        if isinstance(node, ast.Compare):
            return comparisons.comparison(self, node)
        if isinstance(node, ast.Subscript):
            return indexing.subscript(self, node)
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
                state.narrow(self, each, holds=holds)
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
        """``x.attr``: a ``self`` attribute; any other attribute is an operation's."""
        attr = node.attr
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            found = self.attributes[-1].get(attr)
            if found is UNKNOWN:
                return None
            return found if found is not None else mask_from_name(attr, node)
        return constructors.attribute(self, node)

    # -- binary operations -----------------------------------------------------------------------

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
        c = registry.Call(
            node, func, args, values, qualified, method, short, function, receiver, tensor, origin
        )
        found = calls.before(self, c)
        if not isinstance(found, registry.NotMine):
            return found

        if isinstance(func, ast.Name) and func.id in ("int", "bool") and qualified is None and args:
            # the builtins: a Python int or bool, whose ~ is arithmetic (~0 == -1, ~True == -2)
            return Tensor(origin, "int")
        if method == "forward" and isinstance(receiver, Module):
            return api_calls.module_call(
                self, receiver, node, values
            )  # layer.forward(x) as layer(x)
        if isinstance(func, ast.Call) and isinstance(receiver, Module):
            return api_calls.module_call(self, receiver, node, values)  # nn.Softmax(dim=-1)(scores)
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
                return api_calls.module_call(self, callee, node, values)
            if isinstance(callee, Partial):
                read, value = interproc.specialise(
                    self,
                    callee.function,
                    node,
                    [*callee.values, *values],  # type: ignore[list-item]
                    method=False,
                    args=[*callee.args, *args],
                )
                return value if read else None
            if isinstance(callee, Instance):
                value = interproc.instance_call(self, callee, "forward", node, values)
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
                and state.lookup(self, func.id) is None
            ):
                return Instance(origin, self.class_defs[func.id])
            called = func.id if isinstance(func, ast.Name) else method
            helper = (
                interproc.function_named(self, called, method=isinstance(func, ast.Attribute))
                if called is not None
                else None
            )
            if (
                callee is None
                and helper is None
                and isinstance(func, ast.Name)
                and func.id in self.foreign
            ):
                return interproc.imported(self, func.id, node)
            if callee is None and helper is not None:
                read, value = interproc.specialise(
                    self, helper, node, values, method=isinstance(func, ast.Attribute)
                )
                return value if read else interproc.summary(self, helper)
        if isinstance(receiver, Instance) and method is not None:
            return interproc.instance_call(self, receiver, method, node, values)
        if (
            isinstance(func, ast.Name)
            and func.id == "map"
            and state.lookup(self, "map") is None
            and len(args) == 2
            and not any(arg.keyword or arg.star for arg in args)
        ):
            return self.map_call(args[0].value, args[1].value, origin)
        if qualified == "functools.partial" and args and isinstance(args[0].value, ast.Name):
            bound = interproc.function_named(self, args[0].value.id, method=False)
            if bound is not None and not any(arg.star for arg in args):
                return Partial(origin, bound, tuple(args[1:]), tuple(values[1:]))
            return None
        if method == "register_buffer" and len(args) >= 2:
            name = string_literal(args[0].value)
            if name is not None and values[1] is not None:
                self.attributes[-1][name] = values[1]
            return None
        return calls.operation(self, c)

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

    # -- sinks -----------------------------------------------------------------------------------


def _narrowed_names(guards: list[Guard | None]) -> set[str]:
    """The names an ``if`` test narrows (its dtype or None tests)."""
    return {guard[0].id for guard in guards if guard is not None}


def _assigns(statements: list[ast.stmt], name: str) -> bool:
    """Whether any of ``statements`` (at any depth) binds ``name``."""
    for statement in statements:
        for node in ast.walk(statement):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(
                node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)
            ):
                targets = [node.target]
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                targets = [item.optional_vars for item in node.items if item.optional_vars]
            for target in targets:
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                    return True
    return False
