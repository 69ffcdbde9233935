"""``python -m attention.semantics``: check every mask-semantics claim against the installed torch.

Human-readable by default; ``--json`` prints ``{"torch": ..., "release": {...}, "rows": [...]}``
(:func:`attention.semantics.report.to_json`).  Each PyTorch row is compared with its expectation
for the installed torch release.  A release that is not verified (not in
``conf/torch-releases.toml``) is compared with its nearest verified neighbour, and the output
says which: the oldest for a release older than all, the one below for a release between two
(an expectation holds from a release on), the latest for a release newer than all.

Exit status: 0 when at least one row was verified here and every verified row is ok; 1 when a
verified row failed, when no row at all was verified here (every selected row not verified --
it needs a CUDA device -- or skipped -- its framework is not installed), or with ``--strict``
when a row was not verified here; 2 for bad input (below).  The lines under the count say why
a run without a failing row exits 1 (on stderr with ``--json``).

``--record`` writes the record of the run into the checkout the command runs in (the current
folder or the nearest one above it that holds ``conf/semantics.toml``):
``conf/records/torch-<release>.json``, or with ``--all`` ``conf/records/ecosystem.json``; a path
after it writes there instead.  Outside a checkout, ``--record`` without a path is refused with
exit status 2 (never a file inside the installed package).  ``--require-torch X.Y.Z`` refuses,
with exit status 2, to run on any other torch release.

``--release-record FRAMEWORK`` (transformers, onnxruntime or keras, whose rows are stated per
release of their own) runs that framework's rows alone on its installed release and, when none
fails, writes ``conf/records/libraries/FRAMEWORK-X.Y.Z.json`` in the checkout (``nox -s
semantics_releases`` does it for every release of ``conf/library-releases.toml``); a framework
that is not installed, another framework, ``--only`` with it, or a folder outside a checkout is
refused with exit status 2.

``--all`` adds the rows about other frameworks (JAX, Flax, Keras, Transformers, flash-attn,
xFormers) for whichever of them are installed; the others' rows are reported as skipped, with the
reason, and do not fail the run.  Without ``--all`` none of those frameworks is imported.

A claims file that cannot be read or is malformed is reported in one line on stderr,
``error: <file>:<line>: claim #<n> ('<id>'): <what is wrong>``, with exit status 2, before any
probe runs; so is an ``--only`` id that no row has, and a row that belongs in the other claims
file (the line names the file given and the file the row belongs in).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

try:
    import torch
except ModuleNotFoundError as missing:  # the probes run on the installed torch
    if missing.name != "torch":
        raise
    from attention import TORCH_MISSING

    print(
        f"attention.semantics: {TORCH_MISSING.format(what='python -m attention.semantics')}",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

from attention.semantics import paths
from attention.semantics.claims import (
    VERSIONED,
    Claim,
    ClaimsError,
    load_claims,
    load_ecosystem_claims,
)
from attention.semantics.record import (
    default_record_path,
    make_record,
    make_release_record,
    write_record,
)
from attention.semantics.registry import VERIFIED_WITH, installed_versions
from attention.semantics.report import (
    UnknownClaimIdError,
    exit_notes,
    exit_status,
    format_table,
    installed_release,
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
        epilog="exit status: 0 when at least one row was verified here and every verified row "
        "is ok; 1 when a verified row failed, when no row was verified here at all (each one "
        "not verified here or skipped), or with --strict when a row was not verified here; 2 "
        "for bad input (a malformed claims file, an unknown --only id, --require-torch on "
        "another torch, --record without a path outside a checkout).",
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
        "(conf/records/ecosystem.json, every one installed), in the checkout the command runs "
        "in (the nearest folder, here or above, with conf/semantics.toml); to PATH if given",
    )
    parser.add_argument(
        "--release-record",
        metavar="FRAMEWORK",
        help="run only FRAMEWORK's rows (transformers, onnxruntime or keras: rows stated per "
        "release of their own) and, when none fails, write their record on the installed release: "
        "conf/records/libraries/FRAMEWORK-X.Y.Z.json in the checkout the command runs in",
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
        ecosystem = load_ecosystem_claims() if args.all or args.release_record else []
    except ClaimsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.release_record is not None:
        return _release_record(args.release_record, ecosystem, only=args.only)
    target = None
    if args.record is not None:
        if args.only:
            parser.error("--record needs every row; drop --only")
        target = args.record
        if not target:
            root = paths.checkout()
            if root is None:
                print(
                    f"error: --record without a path writes into the checkout it runs in, and "
                    f"{Path.cwd()} is not in one (no conf/semantics.toml there or above): run it "
                    "in a clone of the repository, or name the file: --record PATH",
                    file=sys.stderr,
                )
                return 2
            target = str(default_record_path(ecosystem=args.all, root=root))
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
        for note in exit_notes(results, strict=args.strict):
            print(note, file=sys.stderr)
    else:
        print(format_table(results, versions=versions, context=context, strict=args.strict))
    status = exit_status(results, strict=args.strict)
    if target is not None:
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


def _release_record(
    framework: str, ecosystem: Sequence[Claim], *, only: Sequence[str] | None
) -> int:
    """``--release-record FRAMEWORK``: its rows on the installed release, then their record."""
    versioned = [name for name in VERSIONED if name != "torch"]
    if framework not in versioned:
        print(
            f"error: --release-record takes one of {', '.join(versioned)} (the frameworks whose "
            f"rows are stated per release), got {framework!r}",
            file=sys.stderr,
        )
        return 2
    if only:
        print(
            "error: --release-record needs every row of the framework; drop --only", file=sys.stderr
        )
        return 2
    release = installed_release(framework)
    if release is None:
        print(f"error: --release-record {framework}: {framework} is not installed", file=sys.stderr)
        return 2
    root = paths.checkout()
    if root is None:
        print(
            f"error: --release-record writes into the checkout it runs in, and {Path.cwd()} is "
            "not in one (no conf/semantics.toml there or above)",
            file=sys.stderr,
        )
        return 2
    rows = [claim for claim in ecosystem if claim.framework == framework]
    results = run(rows)
    versions = installed_versions(("torch", *VERIFIED_WITH[framework]))
    print(format_table(results, versions=versions))
    status = exit_status(results)
    target = root / paths.library_record(framework, release).relative_to(paths.ROOT)
    if status != 0:
        print(f"not writing {target}: some rows failed", file=sys.stderr)
        return status
    try:
        record = make_release_record(
            framework, rows, results, claims_file=paths.ECOSYSTEM_CLAIMS.name
        )
    except ValueError as error:
        print(f"not writing {target}: {error}", file=sys.stderr)
        return 1
    write_record(record, target)
    print(f"wrote {target}", file=sys.stderr)
    if release not in paths.library_releases().get(framework, []):
        print(
            f"note: {framework} {release} is not listed in conf/library-releases.toml: list it "
            "for the site and the tests to use this record",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
