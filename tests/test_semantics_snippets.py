"""Every row's "reproduce" snippet runs as a doctest against the installed torch.

The snippets are what a reader copies from the table, so they are checked exactly like the
claims: a snippet whose printed numbers stop matching torch fails here, naming its row and line.
A row whose behaviour changed in a torch release runs the snippet for the installed release.
"""

from __future__ import annotations

import dataclasses
import doctest
from pathlib import Path

import pytest
import torch

from attention.semantics.claims import Claim, default_claims_path, load_claims
from attention.semantics.report import release_context

CLAIMS = load_claims()
SOURCE = default_claims_path()
RELEASE = release_context().compared_with


def snippet_line(claim_id: str, snippet: str, source: Path = SOURCE) -> int:
    """The line of the claims file where this snippet of the claim starts (0-based, for doctest)."""
    text = Path(source).read_text(encoding="utf-8")
    found = text.find(snippet, text.index(f'id = "{claim_id}"'))
    return text.count("\n", 0, found) - 1 if found >= 0 else 0


def run_snippet(claim: Claim, source: Path = SOURCE) -> tuple[int, str]:
    """Run the snippet for this release as a doctest: the failed examples and the report.

    ``source`` is the claims file the claim comes from, so a failure names its line.
    """
    snippet = claim.reproduce_for(RELEASE)
    test = doctest.DocTestParser().get_doctest(
        snippet, {}, claim.id, str(source), snippet_line(claim.id, snippet, source)
    )
    assert test.examples, f"{claim.id}: the snippet has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    return runner.failures, "".join(report)


@pytest.mark.parametrize("claim", CLAIMS, ids=[claim.id for claim in CLAIMS])
def test_reproduce_snippet_runs(claim: Claim) -> None:
    if claim.requires == "cuda" and not torch.cuda.is_available():
        pytest.skip(f"{claim.id} needs a CUDA device")
    failures, report = run_snippet(claim)
    assert failures == 0, report


def test_a_snippet_with_a_wrong_number_fails() -> None:
    claim = next(c for c in CLAIMS if c.id == "sdpa.attn_mask.bool")
    wrong = dataclasses.replace(
        claim, reproduce=claim.reproduce.replace("[0.5, 0.0, 0.5]", "[0.0, 0.5, 0.0]")
    )
    assert wrong.reproduce != claim.reproduce
    failures, report = run_snippet(wrong)
    assert failures == 1
    assert "sdpa.attn_mask.bool" in report
