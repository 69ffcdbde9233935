r"""Where a module makes the tokenizer's 1/0 ``attention_mask`` additive for its layers.

Hugging Face models convert once, in the model's ``forward``: ``(1.0 - attention_mask) *
torch.finfo(dtype).min`` (or ``self.get_extended_attention_mask(...)``), and hand the result down
through the encoder and its layers to a self-attention whose parameter is still named
``attention_mask``.  In such a module the name of a layer's parameter no longer says
1 = real token: the module's own code says what its layers receive (0 = attend, a large
negative number = padding).  :func:`converting` finds the functions that convert; a parameter
named like the tokenizer's mask anywhere else in the module then gives no finding by its name.

>>> import ast
>>> tree = ast.parse(
...     "def forward(self, x, attention_mask):\n"
...     "    extended = (1.0 - attention_mask[:, None, None, :]) * -10000.0\n"
...     "    return self.encoder(x, extended)\n"
... )
>>> len(converting(tree))
1
>>> converting(ast.parse("def f(m):\n    return (1.0 - m) * 2\n"))
frozenset()
"""

from __future__ import annotations

import ast
import re

from attention.review.syntax import last_name, names_in

__all__ = ["CONVERTERS", "converting"]


CONVERTERS = frozenset(
    {
        "get_extended_attention_mask",
        "invert_attention_mask",
        "_prepare_4d_attention_mask",
        "_prepare_4d_attention_mask_for_sdpa",
        "_prepare_4d_causal_attention_mask",
        "_expand_mask",
    }
)
"""Hugging Face's helpers that turn a 1/0 attention_mask into an additive one."""


_WRITTEN = re.compile(
    r"\b1(?:\.0*)?\s*-\s*[\w.\[\]()]*attention_mask|" + "|".join(sorted(CONVERTERS))
)
"""What a conversion looks like in the text: ``1.0 - extended_attention_mask``, a converter."""


def _tokenizer_mask(node: ast.AST) -> bool:
    """An expression that reads a name ending in ``attention_mask``."""
    return any(name.lower().endswith("attention_mask") for name in names_in(node))


def _one_minus(node: ast.AST) -> bool:
    """``1 - m`` / ``1.0 - m`` of a tokenizer mask."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and isinstance(node.left, ast.Constant)
        and node.left.value in (1, 1.0)
        and _tokenizer_mask(node.right)
    )


def _converts(node: ast.AST) -> bool:
    """``(1 - attention_mask) * c`` or a call of one of :data:`CONVERTERS`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _one_minus(node.left) or _one_minus(node.right)
    return isinstance(node, ast.Call) and last_name(node.func) in CONVERTERS


def converting(tree: ast.Module, text: str | None = None) -> frozenset[int]:
    """The ids of the functions of a module that convert a tokenizer mask to an additive one.

    One walk of the tree, each function's body once; ``text`` (the module's source) skips the
    walk where it names no attention_mask at all.
    """
    if text is not None and not _WRITTEN.search(text):
        return frozenset()
    found: set[int] = set()

    def visit(node: ast.AST, functions: tuple[int, ...]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions = (*functions, id(node))
        if functions and _converts(node):
            found.update(functions)
        for child in ast.iter_child_nodes(node):
            visit(child, functions)

    visit(tree, ())
    return frozenset(found)
