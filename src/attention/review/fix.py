r"""``--fix`` / ``--diff``: the rewrites that cannot change a correct program.

Only one kind qualifies: a finite fill beyond float16's range in ``masked_fill`` (AM202)
becomes ``torch.finfo(<tensor>.dtype).min``.  In float32 and wider both fills give a masked key
the weight 0, so a program that was right stays right; in float16 the old fill raised.  Every
other fix changes what a correct program computes in some case, so it stays text in the message.

>>> source = "import torch\ndef f(s, mask):\n    return s.masked_fill(mask, -1e9).softmax(-1)\n"
>>> print(fixed_source(source))
import torch
def f(s, mask):
    return s.masked_fill(mask, torch.finfo(s.dtype).min).softmax(-1)
<BLANKLINE>
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

import libcst as cst

from attention.review.check import Finding, check_module, could_hold_finding

__all__ = ["diff", "fixed_source"]


class _Rewrite(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, str]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode:
        replacement = self.replacements.get(id(original_node))
        if replacement is not None and isinstance(updated_node, cst.BaseExpression):
            return cst.parse_expression(replacement)
        return updated_node


def fixed_source(
    source: str, path: str = "<string>", keep: Callable[[Finding], bool] = lambda _: True
) -> str:
    """``source`` with every safe rewrite applied to the findings ``keep`` accepts."""
    if not could_hold_finding(source):
        return source
    module = cst.parse_module(source)
    replacements = {
        id(finding.node): finding.fix_code
        for finding in check_module(module, path)
        if finding.fix_code is not None and finding.node is not None and keep(finding)
    }
    if not replacements:
        return source
    return module.visit(_Rewrite(replacements)).code


def diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file (empty when nothing changed)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
