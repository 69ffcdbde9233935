"""Every row's "reproduce" snippet, run as a doctest against the installed torch.

The snippets are what a reader copies from the table, so they are checked like the claims: a
snippet whose printed numbers stop matching torch fails, naming its row and the line of the
claims file.  A row whose behaviour changed runs the snippet for the installed release; a row
whose API the release does not have (``introduced``) and a row that needs a missing CUDA device
have none to run.  ``nox -s semantics_matrix`` runs them on every release, with the standard
library only (``python -m attention.semantics.snippets``); the test suite runs them under pytest.

>>> from attention.semantics.claims import load_claims
>>> row = next(c for c in load_claims() if c.id == "sdpa.attn_mask.bool")
>>> run_snippet(row, "2.13.0")[0]
0
"""

from __future__ import annotations

import argparse
import doctest
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from attention.semantics.claims import Claim, default_claims_path, expected_for, load_claims
from attention.semantics.report import release_context

__all__ = ["main", "run_snippet", "skip_reason", "snippet_line"]


def snippet_line(claim_id: str, snippet: str, source: Path) -> int:
    """The line of the claims file where this snippet of the claim starts (0-based, for doctest)."""
    text = Path(source).read_text(encoding="utf-8")
    found = text.find(snippet.rstrip("\n"), text.index(f'id = "{claim_id}"'))
    return text.count("\n", 0, found) - 1 if found >= 0 else 0


def skip_reason(claim: Claim, release: str) -> str | None:
    """Why ``claim`` has no snippet to run on torch ``release`` here, or None."""
    if claim.requires == "cuda" and not torch.cuda.is_available():
        return f"{claim.id} needs a CUDA device"
    if expected_for(claim, release) == "absent":
        return f"torch {release} does not have the API of {claim.id}"
    return None


def run_snippet(claim: Claim, release: str, source: Path | None = None) -> tuple[int, str]:
    """Run the snippet for ``release`` as a doctest: the failed examples and the report.

    ``source`` is the claims file the claim comes from, so a failure names its line.
    """
    source = Path(source) if source is not None else default_claims_path()
    snippet = claim.reproduce_for(release)
    test = doctest.DocTestParser().get_doctest(
        snippet, {}, claim.id, str(source), snippet_line(claim.id, snippet, source)
    )
    if not test.examples:
        raise ValueError(f"{claim.id}: the snippet has no examples")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    return runner.failures, "".join(report)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every row's snippet on the installed torch; exit 1 when one fails."""
    parser = argparse.ArgumentParser(
        prog="python -m attention.semantics.snippets",
        description="Run the reproduce snippet of every mask-semantics row on this torch.",
    )
    parser.parse_args(argv)
    release = release_context().compared_with
    failed = ran = 0
    for claim in load_claims():
        reason = skip_reason(claim, release)
        if reason is not None:
            print(f"skip {claim.id}: {reason}")
            continue
        failures, report = run_snippet(claim, release)
        ran += 1
        if failures:
            failed += 1
            print(f"FAIL {claim.id}\n{report}")
        else:
            print(f"ok   {claim.id}")
    print(f"{ran} snippets on torch {torch.__version__}: {ran - failed} ok, {failed} failed")
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
