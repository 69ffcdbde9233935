"""The lesson pages' code: exactly the examples a page presents as wrong are flagged.

Each page's code blocks ({doctest} and {code-cell}) are read in order as one program, as they
run.  The pages mark their wrong examples in prose and in names (``wrong_axis``, ``w_wrong``,
"# unconverted"); the list below names each such example by page, rule and a piece of its
line, with two the checker does not flag and why.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from attention.review.check import check_source

DOCS = Path(__file__).parents[2] / "docs"
PAGES = sorted([*DOCS.glob("lesson/*.md"), *DOCS.glob("concepts/*.md")])
BLOCK = re.compile(r"^```\{(doctest|code-cell)\}[^\n]*\n(.*?)^```", re.S | re.M)

FLAGGED = {
    ("concepts/worked-example.md", "AM402", "wrong = torch.softmax("),
    ("concepts/worked-example.md", "AM105", "~allowed_first)[0].item()"),
    ("lesson/02-scaled-dot-product.md", "AM402", "wrong_axis = torch.softmax("),
    ("lesson/03-masks-before-softmax.md", "AM202", "scores16.masked_fill(~allowed, -1e9)"),
    ("lesson/03-masks-before-softmax.md", "AM202", "torch.tensor(-1e9, dtype=torch.float16)"),
    ("lesson/03-masks-before-softmax.md", "AM202", "torch.tensor(-1e6, dtype=torch.float16)"),
    ("lesson/03-masks-before-softmax.md", "AM202", "torch.full((3,), -1e9).half()"),
    ("lesson/04-boolean-mask-semantics.md", "AM102", "w_wrong = mha(x, x, x, attn_mask=allowed)"),
    (
        "lesson/04-boolean-mask-semantics.md",
        "AM102",
        "_, mha_weights = mha(x, x, x, attn_mask=allowed)",
    ),
    ("lesson/04-boolean-mask-semantics.md", "AM102", "w_pad_wrong = mha("),
    ("lesson/07-multi-head.md", "AM102", "wrong_out, wrong_weights = reference("),
    ("lesson/exercises.md", "AM102", "wrong_out, wrong_weights = mha("),
    ("lesson/misconceptions.md", "AM401", "zeroed_after = torch.softmax("),
    # the page reads SDPA's top-left alignment off the kernel, with 2 queries and 4 keys
    ("lesson/06-causal-masks.md", "AM302", "used = F.scaled_dot_product_attention(zq, zk,"),
    ("lesson/misconceptions.md", "AM102", "mha(q, k, v, attn_mask=causal)"),
}
"""(page, code, a piece of the flagged line): the wrong examples the pages show on purpose."""

NOT_FLAGGED = {
    ("concepts/worked-example.md", "(weights * allowed_first) @ v"): "the weights come from a "
    "tuple returned by the package's SDPA, which the checker does not follow into",
    ("lesson/05-single-head.md", "allowed.float())"): "the package's own SDPA raises "
    "MaskDtypeError on it: a run-time error, nothing silent to report",
}
"""Wrong examples the checker leaves alone, with the reason."""


def page_program(text: str) -> str:
    parts = []
    for match in BLOCK.finditer(text):
        kind, body = match.groups()
        if kind == "doctest" or ">>>" in body:
            parts.extend(example.source for example in doctest.DocTestParser().get_examples(body))
        else:
            parts.append("\n".join(line for line in body.splitlines() if not line.startswith(":")))
        parts.append("\n")
    return "".join(parts)


def flagged_on(page: Path) -> set[tuple[str, str, str]]:
    source = page_program(page.read_text(encoding="utf-8"))
    lines = source.splitlines()
    name = str(page.relative_to(DOCS))
    found = set()
    for finding in check_source(source, name):
        line = lines[finding.line - 1]
        pieces = [
            p for (page_name, code, p) in FLAGGED if page_name == name and code == finding.code
        ]
        piece = next((p for p in pieces if p in line), line.strip())
        found.add((name, finding.code, piece))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[page.stem for page in PAGES])
def test_exactly_the_wrong_examples_are_flagged(page: Path) -> None:
    name = str(page.relative_to(DOCS))
    assert flagged_on(page) == {entry for entry in FLAGGED if entry[0] == name}


def test_the_unflagged_wrong_examples_are_still_on_their_pages() -> None:
    for (name, piece), _why in NOT_FLAGGED.items():
        assert piece in (DOCS / name).read_text(encoding="utf-8")
