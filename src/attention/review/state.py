"""What the pass knows per name, and how branches and tests change it (the binder).

Names and ``self.`` attributes are bound in scopes; an ``if`` runs each branch from the same
state and keeps, per name, what the branches agree on (:func:`branches`, with
:func:`~attention.review.values.join`); a test on a name's dtype or on ``None`` narrows it on
each side (:func:`narrow`, reading :func:`_guard`).  mypy's ``binder.py`` is the model.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from attention.review.provenance import (
    Mask,
    Origin,
    meaning_named,
)
from attention.review.syntax import (
    is_none,
    last_name,
)
from attention.review.values import (
    NONE,
    UNKNOWN,
    AnyValue,
    Guard,
    Tensor,
    Transposed,
    TupleValue,
    join,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


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


def _conjuncts(test: ast.AST) -> list[Guard]:
    """What each term of ``a and b and …`` says (all of them hold where the test is true)."""
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return [guard for guard in map(_guard, terms) if guard is not None]


def _leaves(body: Sequence[ast.stmt]) -> bool:
    """Whether a block always ends in ``return`` or ``raise``."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def lookup(ev: Interpreter, name: str) -> AnyValue | None:
    """A name's value, innermost scope first."""
    for scope in reversed(ev.scopes):
        if name in scope:
            return scope[name]
    return None


def bind(ev: Interpreter, target: ast.AST, value: AnyValue | None) -> None:
    """Assign a value to a target: a name, ``self.x``, or each element of a tuple."""
    name = last_name(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
    if isinstance(value, Mask) and value.by_name and value.meaning is not None and name:
        stated = meaning_named(name)
        if stated is not None and stated != value.meaning:
            # two names disagree (`remove_from_windowed_attention_mask = (attention_mask
            # != 0)`, Longformer's 0 = local attention): neither is evidence any more
            value = value.but(meaning=None)
    if isinstance(target, ast.Name):
        if value is None and target.id not in ev.scopes[-1]:
            # a new name for a value the pass does not model: its name is the evidence
            ev.scopes[-1].pop(target.id, None)
        else:
            # a name reassigned from what the pass does not model proves nothing any more
            ev.scopes[-1][target.id] = UNKNOWN if value is None else value
    elif (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        ev.attributes[-1][target.attr] = UNKNOWN if value is None else value
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
            bind(ev, element, one)  # type: ignore[arg-type]
    elif isinstance(target, ast.Starred):
        bind(ev, target.value, None)


def narrow(ev: Interpreter, guard: Guard | None, *, holds: bool) -> None:
    """Bind what a dtype test proves about a name on one side of its ``if``."""
    if guard is None:
        return
    node, fact, positive = guard
    name = node.id
    if fact == "none":
        if positive == holds:
            ev.scopes[-1][name] = NONE
        elif lookup(ev, name) is NONE:
            ev.scopes[-1][name] = UNKNOWN
        return
    value = ev.ev(node)
    if not isinstance(value, Mask):
        return
    is_fact = positive == holds
    if value.additive_when is not None and fact == "bool":
        # a mask Boolean under one setting and additive under the other: the test says which
        if is_fact:
            # Boolean here for certain; whether this branch runs is still the setting's
            ev.scopes[-1][name] = value.but(dtype="bool")
        else:
            ev.scopes[-1][name] = Mask("additive", value.origin, dtype="float")
        return
    if fact == "bool" and is_fact:
        if value.kind == "mask" and not (value.by_name and value.hf):
            ev.scopes[-1][name] = value.but(dtype="bool", hf=False)
        else:
            ev.scopes[-1][name] = UNKNOWN
    elif (fact == "bool" or (fact == "float" and is_fact)) and (
        value.by_name or value.dtype in ("bool", None)
    ):
        # not Boolean (or floating point): what its name or an earlier line said is moot
        ev.scopes[-1][name] = UNKNOWN


def branches(ev: Interpreter, runs: list[Callable[[], None]], *, exhaustive: bool) -> None:
    """Run each branch from the same state; afterwards a name keeps only a value they share.

    A mask flipped on one path is not taken for flipped on the other (``if sdpa: m = ~m
    else: mha(key_padding_mask=m)``); with no ``else`` the state before is one of the paths.
    """
    names, attributes = ev.scopes[-1], ev.attributes[-1]
    ends = []
    for run in runs:
        ev.scopes[-1], ev.attributes[-1] = dict(names), dict(attributes)
        run()
        ends.append((ev.scopes[-1], ev.attributes[-1]))
    if not exhaustive:
        ends.append((names, attributes))
    ev.scopes[-1] = join([end[0] for end in ends])
    ev.attributes[-1] = join([end[1] for end in ends])
    if len(ev.scopes) == 1:
        ev.globals = ev.scopes[0]
