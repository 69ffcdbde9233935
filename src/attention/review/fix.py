r"""``--fix`` / ``--diff``: the rewrites that cannot change a correct program.

Only one kind qualifies: a finite fill beyond float16's range in ``masked_fill`` (AM202)
becomes ``torch.finfo(<tensor>.dtype).min``.  In float32 and wider both fills give a masked key
the weight 0, so a program that was right stays right; in float16 the old fill raised.  Every
other fix changes what a correct program computes in some case, so it stays text in the message.

>>> source = ("import torch  # fp16\ndef f(s, mask):\n"
...           "    return s.masked_fill(mask, -1e9).softmax(-1)\n")
>>> print(fixed_source(source), end="")
import torch  # fp16
def f(s, mask):
    return s.masked_fill(mask, torch.finfo(s.dtype).min).softmax(-1)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from attention.review.check import BOM, Finding, check_source

__all__ = ["diff", "fixed_source"]


def fixed_source(
    source: str, path: str = "<string>", keep: Callable[[Finding], bool] = lambda _: True
) -> str:
    """``source`` with every safe rewrite applied to the findings ``keep`` accepts.

    Each rewrite replaces exactly the text of the expression it is about; every other character
    of the file (line endings, a byte-order mark, comments, spacing) stays as it was.
    """
    mark = BOM if source.startswith(BOM) else ""
    source = source.removeprefix(BOM)
    edits = sorted(
        (finding.span, finding.fix_code)
        for finding in check_source(source, path)
        if finding.fix_code is not None and finding.span is not None and keep(finding)
    )
    fixed, limit = source, len(source)
    for (start, end), code in reversed(edits):
        if end <= limit:  # an edit inside one already made is left out
            fixed, limit = fixed[:start] + code + fixed[end:], start
    return mark + fixed


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
