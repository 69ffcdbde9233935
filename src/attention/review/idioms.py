r"""One library's code shape the checker reads on purpose, where no fact about values decides.

Each idiom here is named for the code it comes from, cites where that code is, and is tested
on it: a shape that is right there and that the rules would otherwise take for a mistake.
A reading that follows from what values are (a dtype, an axis, a convention) belongs to the
operations and the rules, not here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review.syntax import last_name

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

__all__ = ["dual_softmax"]


def dual_softmax(ev: Interpreter, node: ast.AST) -> bool:
    r"""``F.softmax(sim, 1) * F.softmax(sim, 2)``: LoFTR's dual softmax, both axes on purpose.

    The softmax is one factor of a product whose other factor is a softmax of the same
    scores: a matching's mutual score, not attention weights over the keys.  Source: LoFTR's
    coarse matching (zju3dv/LoFTR, ``src/loftr/utils/coarse_matching.py``, ``match_type =
    'dual_softmax'``; kornia carries it as ``kornia.feature.loftr``).

    >>> from attention.review.check import check_source
    >>> source = (
    ...     "import torch.nn.functional as F\n"
    ...     "def match(f0, f1):\n"
    ...     "    sim = f0 @ f1.transpose(1, 2)\n"
    ...     "    return F.softmax(sim, 1) * F.softmax(sim, 2)\n"
    ... )
    >>> [finding.code for finding in check_source(source, "case.py")]
    []
    """
    if not ev.functions:
        return False
    for product in ast.walk(ev.functions[-1]):
        if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
            continue
        sides = (product.left, product.right)
        if node not in sides or not all(isinstance(side, ast.Call) for side in sides):
            continue
        calls = [side for side in sides if isinstance(side, ast.Call)]
        if all(last_name(c.func) == "softmax" for c in calls) and all(c.args for c in calls):
            first, second = (ev.code(c.args[0]) for c in calls)
            return first == second
    return False
