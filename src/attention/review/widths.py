r"""The model width as the code shows it: the input size of a projection split into heads.

A scale built from the model width is wrong in multi-head attention (each head has
``width / heads`` features), whatever the width is called.  Besides names (``d_model``,
``embed_dim``: :data:`~attention.review.provenance.WIDTH_NAMES`), two facts of the enclosing
class show it:

* a projection built from it to a multiple of it: ``nn.Linear(n_feat, n_feat)``,
  ``nn.Linear(dim, 3 * dim)``, ``nn.Conv1d(channels, channels * 3, 1)``: its first argument
  is the width of what the projection reads;
* a tensor such a projection reads (``self.linear_q(x)``): its last axis is that width, so
  ``x.size(-1)`` and ``x.shape[-1]`` are the width too.

Whether the heads were split, and whether the width is also multiplied by the head count (then
it is each head's size), the rule decides (:func:`~attention.review.rules.am5_scale.scale_check`).

>>> import ast
>>> tree = ast.parse(
...     "class A:\n"
...     "    def __init__(self, n_feat):\n"
...     "        self.q = nn.Linear(n_feat, n_feat)\n"
...     "    def forward(self, x):\n"
...     "        return self.q(x)\n"
... )
>>> facts = Widths.of(tree.body[0])
>>> sorted(facts.names), sorted(facts.inputs)
(['n_feat'], ['x'])
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attention.review.syntax import factors, int_literal, last_name

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

PROJECTIONS = ("Linear", "Conv1d", "Conv2d")
"""The layers whose first argument is the size of what they read (features or channels)."""


@dataclass(frozen=True)
class Widths:
    """What one class shows to be its model width: names, and tensors whose last axis it is."""

    names: frozenset[str]
    inputs: frozenset[str]

    @staticmethod
    def of(cls: ast.ClassDef) -> Widths:
        """The widths ``cls`` shows, read once per class."""
        names: set[str] = set()
        layers: set[str] = set()
        for node in ast.walk(cls):
            if not (isinstance(node, ast.Call) and last_name(node.func) in PROJECTIONS):
                continue
            if len(node.args) < 2:
                continue
            width = last_name(node.args[0])
            out = node.args[1]
            if width is None or width not in [last_name(part) for part in factors(out)]:
                continue
            names.add(width)
            layers.update(_assigned_to(cls, node))
        inputs = {
            argument.id
            for node in ast.walk(cls)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and node.func.attr in layers
            for argument in node.args[:1]
            if isinstance(argument, ast.Name)
        }
        return Widths(frozenset(names), frozenset(inputs))

    def shown(self, node: ast.AST) -> bool:
        """``n_feat``, ``self.channels``; ``x.size(-1)``, ``x.shape[-1]`` of a projection input."""
        if isinstance(node, (ast.Name, ast.Attribute)) and last_name(node) in self.names:
            return True
        tensor = _last_size_of(node)
        return tensor is not None and tensor in self.inputs


def _assigned_to(cls: ast.ClassDef, call: ast.Call) -> list[str]:
    """``self.q = nn.Linear(...)``: the attribute names the layer is kept under."""
    return [
        target.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign) and node.value is call
        for target in node.targets
        if isinstance(target, ast.Attribute)
    ]


def _last_size_of(node: ast.AST) -> str | None:
    """``x.size(-1)`` / ``x.shape[-1]``: ``x``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "size"
        and len(node.args) == 1
        and int_literal(node.args[0]) == -1
        and isinstance(node.func.value, ast.Name)
    ):
        return node.func.value.id
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and int_literal(node.slice) == -1
        and isinstance(node.value.value, ast.Name)
    ):
        return node.value.value.id
    return None


def model_width(ev: Interpreter, node: ast.AST) -> str | None:
    """``node``'s code where the enclosing class shows it to be the model width, else None."""
    if not ev.classes:
        return None
    cls = ev.classes[-1]
    facts = ev.widths.get(id(cls))
    if facts is None:
        facts = ev.widths[id(cls)] = Widths.of(cls)
    return ev.code(node) if facts.shown(node) else None
