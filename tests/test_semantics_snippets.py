"""Every row's "reproduce" snippet runs as a doctest against the installed torch.

The snippets are what a reader copies from the table, so they are checked exactly like the
claims: a snippet whose printed numbers stop matching torch fails here, naming its row and line.
A row whose behaviour changed in a torch release runs the snippet for the installed release.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from attention.semantics import snippets
from attention.semantics.claims import Claim, default_claims_path, load_claims
from attention.semantics.report import release_context

CLAIMS = load_claims()
SOURCE = default_claims_path()
RELEASE = release_context().compared_with


def run_snippet(claim: Claim, source: Path = SOURCE) -> tuple[int, str]:
    """Run the snippet for the installed release as a doctest (see attention.semantics.snippets)."""
    return snippets.run_snippet(claim, RELEASE, source)


@pytest.mark.parametrize("claim", CLAIMS, ids=[claim.id for claim in CLAIMS])
def test_reproduce_snippet_runs(claim: Claim) -> None:
    reason = snippets.skip_reason(claim, RELEASE)
    if reason is not None:
        pytest.skip(reason)
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
