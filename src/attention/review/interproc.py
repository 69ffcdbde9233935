"""Calls across the checked code's functions: summaries, a helper read with its caller's values.

A helper of the same module (or a method, or a ``forward`` of the module's classes) is read
once with its parameters unknown, for what it returns (its summary), and once more with the
values a call passes it (:func:`specialise`); a helper imported from another module of the
folder being checked is read for what it returns, one step deep (:func:`imported`).  Where a
caller passes a mask that contradicts what a helper's parameter name says, the name's finding
goes.  Semgrep's ``Taint_sig.ml`` is the model.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attention.review import head_counts
from attention.review.project import MASK_WORDS
from attention.review.provenance import (
    Const,
    KeyCat,
    Mask,
    Origin,
    Scores,
)
from attention.review.roles import (
    _parameters,
)
from attention.review.syntax import (
    Arg,
    FunctionNode,
    _inside,
    _short,
)
from attention.review.values import (
    UNKNOWN,
    AnyValue,
    Dim,
    Hit,
    Instance,
    Param,
    Tensor,
    Transposed,
    Unknown,
    join,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


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


def _hoisted(body: Sequence[ast.stmt]) -> dict[str, FunctionNode]:
    """The functions a block defines at its top level, by name (the last definition wins)."""
    return {
        statement.name: statement
        for statement in body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _returned(returned: list[AnyValue | None]) -> AnyValue | None:
    """What every ``return`` of a function agrees on (None when nothing is known)."""
    if not returned:
        return None
    value = join([{"r": UNKNOWN if one is None else one} for one in returned]).get("r")
    return None if isinstance(value, (Unknown, Param)) else value


def drop_contradicted_names(ev: Interpreter, tree: ast.Module) -> None:
    """Drop a finding from a name where every caller in the module says otherwise.

    A helper's parameter named ``attention_mask`` is read as the tokenizer's 1/0 mask;
    where every call of that helper in this module (:func:`_call_sites`) hands it a mask
    and the helper, read again with it, does not make that finding, the name is
    contradicted by the code: HF's float mask compared ``== 0``, or a mask inverted at the
    call (``text_encoder_attention_mask=~text_token_mask``).  Kept where any call passes
    no mask (a 1/0 integer tensor agrees with the name), and where the helper is never
    called here.
    """
    named = [hit for hit in ev.hits if hit.code in BY_NAME]
    if not named or not ev.readings:
        return
    sites = _call_sites(tree)
    dropped: set[int] = set()
    for hit in named:
        for key, readings in ev.readings.items():
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
    ev.hits = [hit for hit in ev.hits if id(hit) not in dropped]


def outline(ev: Interpreter, tree: ast.Module) -> None:
    """What another module offers a caller: its imports and functions, nothing run yet."""
    ev.defs[0].update(_hoisted(tree.body))
    ev.aliases = head_counts.aliases(tree, ev.source.text)
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            ev.import_statement(statement)


def function_named(ev: Interpreter, name: str, *, method: bool) -> FunctionNode | None:
    """The function a call names: ``self.name`` in the class being read, else ``name``.

    Functions of the module and methods of the class are known wherever they are defined
    (read ahead, as Python resolves them when the call runs); a function's own nested
    functions only after their ``def``.
    """
    if method:
        return ev.methods[-1].get(name)
    for scope in reversed(ev.defs):
        if name in scope:
            return scope[name]
    return None


def summary(ev: Interpreter, function: FunctionNode) -> AnyValue | None:
    """What a function of this module (or a method called on ``self``) returns.

    Its body is read once more with its parameters unknown (their names are evidence, as
    anywhere), its findings dropped (they were reported where it was defined), and the
    values of its ``return`` statements joined.  The bound: one level, so a helper called
    from a helper being summarised returns unknown, and a function defined after the call
    (or imported from another module) is not followed.
    """
    key = id(function)
    if key in ev.summaries:
        return ev.summaries[key]
    if ev.summarising:
        return None
    ev.summarising = True
    hits, pending = list(ev.hits), dict(ev.pending)
    attributes = dict(ev.attributes[-1])
    ev.scopes.append(_parameters(function))
    ev.functions.append(function)
    ev.returns.append([])
    ev.defs.append(_hoisted(function.body))
    try:
        ev.statements(function.body)
        returned = ev.returns[-1]
    finally:
        ev.scopes.pop()
        ev.functions.pop()
        ev.returns.pop()
        ev.defs.pop()
        found = [*ev.hits[len(hits) :], *ev.pending.values()]
        ev.own_hits[key] = {(hit.code, id(hit.node)) for hit in found}
        ev.hits, ev.pending = hits, pending
        ev.attributes[-1] = attributes
        ev.summarising = False
    value = _returned(returned)
    ev.summaries[key] = value
    return value


def specialise(
    ev: Interpreter,
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
    passed = ev.args(node) if args is None else args
    inverted = any(
        isinstance(arg.value, ast.UnaryOp) and isinstance(arg.value.op, ast.Invert)
        for arg in passed
    )
    if (
        ev.summarising
        or ev.specialising >= SPECIALISE_DEPTH
        or not (inverted or any(map(_informative, values)))
    ):
        return False, None
    summary(ev, function)
    own = ev.own_hits.get(id(function), set())
    order = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    if method and order and order[0] == "self":
        order = order[1:]
    names = _parameters(function)
    position = 0
    for arg, value in zip(ev.args(node) if args is None else args, values, strict=True):
        if arg.star == "**":
            continue  # more keywords, unknown: the parameters they would bind stay unknown
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
                if function.args.kwarg is not None:
                    continue  # taken by the helper's **kwargs, which the pass does not follow
                return False, None
        if value is not None:
            names[name] = value
    ev.specialising += 1
    ev.helper_calls.append((function, node))
    attributes = dict(ev.attributes[-1])
    ev.scopes.append(names)
    ev.functions.append(function)
    ev.returns.append([])
    ev.defs.append(_hoisted(function.body))
    before = len(ev.hits)
    try:
        ev.statements(function.body)
        returned = ev.returns[-1]
    finally:
        ev.scopes.pop()
        ev.functions.pop()
        ev.returns.pop()
        ev.defs.pop()
        ev.attributes[-1] = attributes
        ev.specialising -= 1
        ev.helper_calls.pop()
    if inverted or any(map(_says_what_it_is, values)):
        # read with a mask the caller knows, or inverts where it passes it: whether the
        # name's finding holds for what it is handed
        ev.readings.setdefault(id(function), {}).setdefault(id(node), []).append(
            {(hit.code, id(hit.node)) for hit in ev.hits[before:]}
        )
    carried = [
        (arg, value)
        for arg, value in zip(ev.args(node) if args is None else args, values, strict=True)
        if isinstance(value, Mask)
    ]
    for index in range(before, len(ev.hits)):
        hit = ev.hits[index]
        if (
            hit.code in POLARITY
            and carried
            and (hit.code, id(hit.node)) not in own
            and _inside(hit.node, function)
        ):
            ev.hits[index] = relocated(ev, hit, function, carried)
    return True, _returned(returned)


def imported(ev: Interpreter, name: str, node: ast.Call) -> AnyValue | None:
    """What a helper imported from another module of the checked tree returns.

    That module is read once per run (its own imports are not followed further), the
    helper's return value is taken as its summary gives it, and only a mask or a constant
    crosses back, re-anchored at this call (a finding names no line of another file).
    """
    if ev.project is None or ev.path is None:
        return None
    module, attr, level = ev.foreign[name]
    file = ev.project.module_file(ev.path, module, level)
    if file is None:
        return None
    resolved = ev.project.resolve(file)
    if resolved == ev.project.resolve(ev.path):
        return None
    reader = ev.project.readers.get(resolved)
    if reader is None:
        source = ev.project.source(file, attr)
        if source is None:
            return None
        reader = type(ev)(source)  # a pass of its own over the other module
        outline(reader, source.tree)
        ev.project.readers[resolved] = reader
    function = reader.defs[0].get(attr)
    if function is None:
        return None
    if id(function) not in reader.summaries and not MASK_WORDS.search(reader.code(function)):
        reader.summaries[id(function)] = None
    aliases = head_counts.ALIASES.set(reader.aliases)  # its own module's head-count names
    try:
        value = summary(reader, function)
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
    ev: Interpreter, instance: Instance, method: str, node: ast.Call, values: list[AnyValue | None]
) -> AnyValue | None:
    """``layer(x)`` / ``layer.forward(x)`` of a class of this module, read with its values.

    The method is read again with the caller's values, in the class's own attributes; where
    the call passes nothing the checker knows, what the method returns with its parameters
    unknown (its summary: softmax weights, a mask it builds).
    """
    state = ev.class_state.get(id(instance.cls))
    if state is None:
        return None
    attributes, methods = state
    function = methods.get(method)
    if function is None:
        return None
    ev.attributes.append(dict(attributes))
    ev.methods.append(methods)
    ev.classes.append(instance.cls)
    try:
        read, value = specialise(ev, function, node, values, method=True)
        if not read:
            value = summary(ev, function)
    finally:
        ev.attributes.pop()
        ev.methods.pop()
        ev.classes.pop()
    return value


def relocated(
    ev: Interpreter,
    hit: Hit,
    function: FunctionNode,
    carried: Sequence[tuple[Arg, AnyValue | None]],
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
    inside = f"in `{function.name}` (line {line}: `{_short(ev.code(hit.node))}`)"
    return Hit(
        hit.code,
        arg.value,
        ev.code(arg.value),
        f"{hit.expects}, {inside}",
        hit.facts,
    )
