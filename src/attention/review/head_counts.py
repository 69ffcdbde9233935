r"""Which sizes count heads: by their name, by a name the module gives a head count, in einops.

``num_heads``, ``self.n_head`` and ``bsz * self.num_heads`` count heads by their names; so does
``h`` where the module reading it assigns ``self.h = heads`` and nothing else to it
(:func:`aliases`, held in :data:`ALIASES` while that module is read).  einops names the heads in
a pattern: ``rearrange(t, 'b n (h d) -> b h n d', h=heads)`` splits them off a group.

>>> import ast
>>> tree = ast.parse("class A:\n    def __init__(self, heads):\n        self.h = heads\n")
>>> names = aliases(tree, "        self.h = heads\n")
>>> sorted(names)
['h']
>>> token = ALIASES.set(names)
>>> counts(ast.parse("x.view(b, n, self.h, -1)").body[0].value.args[2])
True
>>> ALIASES.reset(token)
>>> counts(ast.parse("self.h").body[0].value)
False
"""

from __future__ import annotations

import ast
import contextvars
import re

from attention.review.sinks import HEAD_COUNT
from attention.review.syntax import factors, identifiers, last_name, string_literal

__all__ = ["ALIASES", "aliases", "counts", "einops_split"]


ALIASES: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "head_aliases", default=frozenset()
)
"""Names the module being read gives a head count and nothing else (:func:`aliases`)."""


_ALIAS_LINE = re.compile(r"^[ \t]*(?:self\.)?(\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?(\w+)[ \t]*$", re.M)
"""A line ``h = self.heads``: a candidate alias, found in the text before any tree is walked."""


def aliases(tree: ast.Module, text: str) -> frozenset[str]:
    """``self.h = heads``, ``h = self.num_heads``: names every assignment gives a head count.

    A name also assigned anything else, unpacked, looped over or taken as a parameter anywhere
    in the module (``h`` is a height as often) is no alias.  The tree is walked only where the
    text has a candidate line.
    """
    if not any(
        HEAD_COUNT.fullmatch(source.lstrip("_")) and not HEAD_COUNT.fullmatch(name.lstrip("_"))
        for name, source in _ALIAS_LINE.findall(text)
    ):
        return frozenset()
    counts: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                name = last_name(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
                if name is None:
                    other.update(identifiers(target))
                    continue
                source = last_name(node.value)
                counted = source is not None and HEAD_COUNT.fullmatch(source.lstrip("_"))
                (counts if counted else other).add(name)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
            other.update(identifiers(node.target))
        elif isinstance(node, ast.arg):
            other.add(node.arg)
    return frozenset(counts - other)


def counts(node: ast.AST) -> bool:
    """A size that is a head count, alone or as a factor (``bsz * self.num_heads``).

    By its name, or by a name the module gives a head count (``self.h = heads``).
    """
    return any(
        (name := last_name(factor)) is not None
        and (HEAD_COUNT.fullmatch(name.lstrip("_")) is not None or name in ALIASES.get())
        for factor in factors(node)
    )


def einops_split(node: ast.Call) -> bool:
    """``rearrange(t, 'b n (h d) -> b h n d', h=heads)``: the heads split off a group.

    An axis given a head count by keyword (``h=self.heads``, or a name the module gives one),
    inside a group of the input and an axis of its own in the output; ``h=h`` of a height
    (``'b (h w) c -> b c h w'``) is no split.
    """
    if last_name(node.func) != "rearrange" or len(node.args) < 2:
        return False
    pattern = string_literal(node.args[1])
    if pattern is None or pattern.count("->") != 1:
        return False
    before, after = pattern.split("->")
    grouped = {axis for group in re.findall(r"\(([^()]*)\)", before) for axis in group.split()}
    alone = set(re.sub(r"\([^()]*\)", " ", after).split())
    return any(
        keyword.arg is not None
        and keyword.arg in grouped
        and keyword.arg in alone
        and counts(keyword.value)
        for keyword in node.keywords
    )
