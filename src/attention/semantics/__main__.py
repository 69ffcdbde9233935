"""``python -m attention.semantics``: check every mask-semantics claim against the installed torch.

Human-readable by default; ``--json`` prints ``{"torch": ..., "release": {...}, "rows": [...]}``
(:func:`attention.semantics.report.to_json`).  Each PyTorch row is compared with its expectation
for the installed torch release; a release newer than every verified one is compared with the
latest verified release's expectations, and the output says so.  The exit status is 0 only if
every row that could be verified here is ok (``--strict``: every row).

``--record`` writes the record of the run (``conf/records/torch-<release>.json``, or with
``--all`` ``conf/records/ecosystem.json``; a path after it writes there instead).
``--require-torch X.Y.Z`` refuses, with exit status 2, to run on any other torch release.

``--all`` adds the rows about other frameworks (JAX, Flax, Keras, Transformers, flash-attn,
xFormers) for whichever of them are installed; the others' rows are reported as skipped, with the
reason, and do not fail the run.  Without ``--all`` none of those frameworks is imported.

A claims file that cannot be read or is malformed is reported in one line on stderr,
``error: <file>:<line>: claim #<n> ('<id>'): <what is wrong>``, with exit status 2, before any
probe runs; so is an ``--only`` id that no row has.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import torch

from attention.semantics import paths
from attention.semantics.claims import ClaimsError, load_claims, load_ecosystem_claims
from attention.semantics.record import default_record_path, make_record, write_record
from attention.semantics.registry import installed_versions
from attention.semantics.report import (
    UnknownClaimIdError,
    exit_status,
    format_table,
    release_context,
    run,
    to_json,
)

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check and return the exit status: 0 all ok, 1 a row failed, 2 bad input.

    >>> main(["--only", "sdpa.scale"])  # doctest: +ELLIPSIS
    mask semantics on torch ...
    <BLANKLINE>
    ok   sdpa.scale.default  1/sqrt(d_k)
    <BLANKLINE>
    1 rows: 1 ok, 0 failed, 0 not verified here
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m attention.semantics",
        description="Check what each PyTorch attention API does with masks, on this torch.",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--all",
        action="store_true",
        help="also check the rows about JAX, Flax, Keras, Transformers, flash-attn and xFormers "
        "(those not installed are reported as skipped)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="ID",
        help="run only rows with this id or id prefix (repeatable), e.g. --only mha",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="count rows that cannot be verified here (no CUDA device) as failures",
    )
    parser.add_argument(
        "--record",
        metavar="PATH",
        nargs="?",
        const="",
        help="after a run with no failing row, write the verification record: the PyTorch "
        "rows' (conf/records/torch-<release>.json), or with --all the other frameworks' "
        "(conf/records/ecosystem.json, every one installed); to PATH if given",
    )
    parser.add_argument(
        "--require-torch",
        metavar="X.Y.Z",
        help="exit with status 2 unless the installed torch is this release",
    )
    parser.add_argument("--claims", metavar="PATH", help="claims file (default: the project's)")
    args = parser.parse_args(argv)

    installed = paths.release_of(torch.__version__)
    if args.require_torch is not None and args.require_torch != installed:
        print(
            f"error: torch {torch.__version__} is installed, not the required {args.require_torch}",
            file=sys.stderr,
        )
        return 2
    try:
        claims = load_claims(args.claims)
        ecosystem = load_ecosystem_claims() if args.all else []
    except ClaimsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    context = release_context()
    try:
        results = run([*claims, *ecosystem], only=args.only, release=context.compared_with)
    except UnknownClaimIdError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    versions = installed_versions() if args.all else None
    if args.json:
        document = to_json(results, versions=versions, context=context)
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        print(format_table(results, versions=versions, context=context))
    status = exit_status(results, strict=args.strict)
    if args.record is not None:
        if args.only:
            parser.error("--record needs every row; drop --only")
        target = args.record or str(default_record_path(ecosystem=args.all))
        if status != 0:
            print(f"not writing {target}: some rows failed", file=sys.stderr)
            return status
        # the --all record holds the other frameworks' rows; each torch release has its own
        recorded = ecosystem if args.all else claims
        ours = [r for r in results if (r.claim.framework != "torch") == args.all]
        source = paths.ECOSYSTEM_CLAIMS if args.all else paths.CLAIMS
        try:
            record = make_record(recorded, ours, claims_file=args.claims or source.name)
        except ValueError as error:
            print(f"not writing {target}: {error}", file=sys.stderr)
            return 1
        write_record(record, target)
        print(f"wrote {target}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
