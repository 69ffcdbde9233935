"""Run the probes against the claims and report each row: ok, failed, not verified, or skipped.

A probe that raises fails its own row (``observed = "probe raised: <ExcType>: message"``) and the
other rows still run.  A row whose claim ``requires`` hardware this machine lacks (a CUDA device)
is *not verified*: ``ok`` is false, ``status`` is ``"not_verified"``, ``observed`` is null, and it
does not count towards the exit status unless ``strict`` is set.  A row about a framework that is
not installed here (``jax``, ``transformers``, ...) is *skipped* the same way, with ``status``
``"skipped"`` and the reason (``"jax is not installed"``); its framework is never imported.

A PyTorch row is compared with its expectation for the installed torch release
(:func:`attention.semantics.claims.expected_for`).  :func:`release_context` says which release
that is: the installed one when it is verified, else its nearest verified neighbour -- the
oldest for a release older than all, the one below for a release between two (an expectation
holds from the release it is stated for on), the latest for a release newer than all -- which
the output then states.

A run passes (:func:`exit_status` 0) when it verified at least one row and none of those failed.
A run that verified no row at all -- every row not verified here or skipped, or none selected --
exits 1 and says so: a check that checked nothing must not pass.  ``strict`` also counts each
row not verified here as a failure, and the summary says how many that is.

>>> from attention.semantics.claims import load_claims
>>> results = run(load_claims(), only=["sdpa.attn_mask.float"])
>>> [(row.claim.id, row.status, row.observed) for row in results]
[('sdpa.attn_mask.float', 'ok', 'additive')]
>>> exit_status(results)
0
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from attention.semantics import paths
from attention.semantics.claims import VERSIONED, Claim, expected_for, release_tuple
from attention.semantics.probes.kernels import noting_backends
from attention.semantics.registry import (
    Probe,
    installed_versions,
    missing_framework,
    probes_for,
)

__all__ = [
    "ReleaseContext",
    "RowResult",
    "Status",
    "UnknownClaimIdError",
    "exit_notes",
    "exit_status",
    "format_table",
    "installed_release",
    "missing_requirement",
    "release_context",
    "run",
    "select",
    "skip_reasons",
    "to_json",
]

Status = Literal["ok", "mismatch", "probe_error", "not_verified", "skipped"]


@dataclass(frozen=True)
class RowResult:
    """The outcome of one claim's probe on this machine.

    ``release`` is the release whose expectation the row was compared with: torch's for a
    PyTorch row, the installed transformers, onnxruntime or keras release for theirs (their rows are
    stated per release too), None for the other frameworks' rows, which have one expectation.
    """

    claim: Claim
    status: Status
    observed: str | None
    reason: str | None = None
    release: str | None = None
    backends: tuple[str, ...] = ()
    """The SDPA kernels the probe's default-choice calls ran on (torch rows; empty elsewhere)."""

    @property
    def ok(self) -> bool:
        """True only for a row whose probe ran here and saw the expected value."""
        return self.status == "ok"

    @property
    def expected(self) -> str:
        """What the row expects on ``release`` (the claim's ``expected`` without one)."""
        return (
            self.claim.expected if self.release is None else expected_for(self.claim, self.release)
        )


@dataclass(frozen=True)
class ReleaseContext:
    """Which release's expectations a run uses, and why.

    ``installed`` is the installed torch release, ``verified`` the releases the claims were
    verified on (``conf/torch-releases.toml``), ``compared_with`` the release whose expectations
    the rows are compared with, and ``note`` a sentence for the output when that is not simply
    the installed release, a verified one.
    """

    installed: str
    compared_with: str
    verified: tuple[str, ...]
    note: str | None


def release_context(
    version: str | None = None, verified: Sequence[str] | None = None
) -> ReleaseContext:
    """The release context for torch ``version`` (default: the installed one).

    A verified release is compared with itself; any other with its nearest verified neighbour:
    the oldest verified release for one older than all, the verified release below it for one
    between two (an expectation holds from the release it is stated for on, until the next
    change), the latest for one newer than all.  The note names the release used and why.

    >>> release_context("2.14.1", ["2.13.0", "2.14.1"]).note is None
    True
    >>> context = release_context("2.15.0", ["2.13.0", "2.14.1"])
    >>> context.compared_with
    '2.14.1'
    >>> print(context.note)  # doctest: +NORMALIZE_WHITESPACE
    torch 2.15.0 is newer than every verified release (2.13.0, 2.14.1):
    compared with the expectations for 2.14.1
    >>> print(release_context("2.5.1", ["2.13.0", "2.14.1"]).note)  # doctest: +NORMALIZE_WHITESPACE
    torch 2.5.1 is older than every verified release (2.13.0, 2.14.1):
    compared with the expectations for the oldest, 2.13.0
    >>> context = release_context("2.13.1", ["2.13.0", "2.14.1"])
    >>> context.compared_with
    '2.13.0'
    >>> print(context.note)  # doctest: +NORMALIZE_WHITESPACE
    torch 2.13.1 is not a verified release; it lies between the verified releases 2.13.0 and
    2.14.1: compared with the expectations for 2.13.0, the release below it (an expectation
    holds from a release on)
    """
    installed = paths.release_of(version if version is not None else torch.__version__)
    if verified is None:
        verified = [release.torch for release in paths.torch_releases()]
    ordered = tuple(sorted(verified, key=release_tuple))
    listed = ", ".join(ordered)
    here = release_tuple(installed)
    if installed in ordered:
        return ReleaseContext(installed, installed, ordered, None)
    if here > release_tuple(ordered[-1]):
        note = (
            f"torch {installed} is newer than every verified release ({listed}): compared with "
            f"the expectations for {ordered[-1]}"
        )
        return ReleaseContext(installed, ordered[-1], ordered, note)
    if here < release_tuple(ordered[0]):
        note = (
            f"torch {installed} is older than every verified release ({listed}): compared with "
            f"the expectations for the oldest, {ordered[0]}"
        )
        return ReleaseContext(installed, ordered[0], ordered, note)
    below = max((r for r in ordered if release_tuple(r) < here), key=release_tuple)
    above = min((r for r in ordered if release_tuple(r) > here), key=release_tuple)
    note = (
        f"torch {installed} is not a verified release; it lies between the verified releases "
        f"{below} and {above}: compared with the expectations for {below}, the release below "
        "it (an expectation holds from a release on)"
    )
    return ReleaseContext(installed, below, ordered, note)


def missing_requirement(requirement: str | None) -> str | None:
    """Why a row with this ``requires`` cannot be verified here, or None when it can.

    >>> missing_requirement(None) is None
    True
    """
    if requirement == "cuda" and not torch.cuda.is_available():
        return "needs a CUDA device; this machine has none"
    return None


class UnknownClaimIdError(KeyError):
    """An ``--only`` id that no claim has, or starts with."""

    def __str__(self) -> str:  # KeyError's own str() would quote the whole message
        return str(self.args[0])


def select(claims: Sequence[Claim], only: Iterable[str] | None) -> list[Claim]:
    """The claims whose id equals, or starts with ``prefix + "."``, any of ``only`` (all if None).

    Raises :class:`UnknownClaimIdError` for an id that matches no claim, naming the closest ids.

    >>> from attention.semantics.claims import load_claims
    >>> [claim.id for claim in select(load_claims(), ["mha.key_padding_mask"])]
    ['mha.key_padding_mask.bool', 'mha.key_padding_mask.float']
    """
    if only is None:
        return list(claims)
    prefixes = list(only)
    chosen = [
        claim
        for claim in claims
        if any(claim.id == prefix or claim.id.startswith(prefix + ".") for prefix in prefixes)
    ]
    unmatched = [
        p for p in prefixes if not any(c.id == p or c.id.startswith(p + ".") for c in claims)
    ]
    if unmatched:
        ids = [claim.id for claim in claims]
        hints = []
        for prefix in unmatched:
            near = difflib.get_close_matches(prefix, ids, n=3, cutoff=0.6)
            hints.append(f"{prefix!r}" + (f" (did you mean {', '.join(near)}?)" if near else ""))
        raise UnknownClaimIdError(
            f"--only {', '.join(hints)}: no claim id is or starts with it; "
            "python -m attention.semantics lists every id"
        )
    return chosen


def _run_one(
    claim: Claim, probe: Probe | None, skipped: str | None = None, release: str | None = None
) -> RowResult:
    reason = missing_requirement(claim.requires)
    if reason is not None:
        return RowResult(claim, "not_verified", None, reason, release)
    if skipped is not None:
        return RowResult(claim, "skipped", None, skipped, release)
    if probe is None:
        return RowResult(
            claim, "probe_error", "no probe is registered for this claim", release=release
        )
    expected = expected_for(claim, release) if release is not None else claim.expected
    try:
        with warnings.catch_warnings():
            # framework warnings (deprecations, "unfused implementation") would bury the table;
            # probes that are about a warning record it themselves
            warnings.simplefilter("ignore")
            with noting_backends() as backends:
                observed = probe()
    except Exception as error:
        raised = f"probe raised: {type(error).__name__}: {error}"
        if claim.framework != "torch" and expected == "error":
            # a release on which the row's call raises says so in a change of the row, whose
            # note names the failure; the record keeps the exception's first line as the reason
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            return RowResult(claim, "ok", "error", f"{type(error).__name__}: {first}", release)
        return RowResult(claim, "probe_error", raised, release=release)
    status: Status = "ok" if observed == expected else "mismatch"
    return RowResult(claim, status, observed, None, release, tuple(backends))


def skip_reasons(claims: Iterable[Claim]) -> dict[str, str | None]:
    """For each framework of ``claims``: why its rows are skipped here, or None when they run.

    >>> from attention.semantics.claims import load_claims
    >>> skip_reasons(load_claims())
    {'torch': None}
    """
    return {framework: missing_framework(framework) for framework in {c.framework for c in claims}}


def run(
    claims: Sequence[Claim],
    *,
    only: Iterable[str] | None = None,
    probes: Callable[[str], Mapping[str, Probe]] = probes_for,
    release: str | None = None,
) -> list[RowResult]:
    """Run the probe of every selected claim, in the order of the claims file.

    The PyTorch rows are compared with their expectation for torch ``release`` (default: the
    one :func:`release_context` picks for the installed torch).  The probes of a framework that
    is not installed are neither imported nor run: its rows come back skipped.
    """
    if release is None:
        release = release_context().compared_with
    chosen = select(claims, only)
    skipped = skip_reasons(chosen)
    tables = {
        framework: probes(framework) if reason is None else {}
        for framework, reason in skipped.items()
    }
    releases = {
        framework: release if framework == "torch" else installed_release(framework)
        for framework, reason in skipped.items()
        if reason is None
    }
    return [
        _run_one(
            claim,
            tables[claim.framework].get(claim.id),
            skipped[claim.framework],
            releases.get(claim.framework),
        )
        for claim in chosen
    ]


def installed_release(framework: str) -> str | None:
    """The installed release ``X.Y.Z`` of ``framework`` when its rows are stated per release.

    None for a framework whose rows have one expectation (not in
    :data:`attention.semantics.claims.VERSIONED`) and for one that is not installed.

    >>> installed_release("jax") is None
    True
    """
    if framework not in VERSIONED or framework == "torch":
        return None
    version = installed_versions((framework,))[framework]
    return paths.release_of(version) if version else None


_VERIFIED: frozenset[Status] = frozenset({"ok", "mismatch", "probe_error"})
"""The statuses of a row whose probe ran here."""


def exit_status(results: Sequence[RowResult], *, strict: bool = False) -> int:
    """0 when at least one row was verified here and every verified row is ok, else 1.

    A run that verified no row at all -- each one not verified here (no CUDA device) or
    skipped (its framework is not installed), or no row selected -- is 1: a check that checked
    nothing must not pass (:func:`exit_notes` says why).  Rows not verified here count as
    failures only with ``strict``; skipped rows never do.
    """
    if not any(r.status in _VERIFIED for r in results):
        return 1
    counted = [
        r for r in results if r.status != "skipped" and (strict or r.status != "not_verified")
    ]
    return 0 if all(r.ok for r in counted) else 1


def exit_notes(results: Sequence[RowResult], *, strict: bool = False) -> list[str]:
    """Why the run exits 1 although no verified row failed, one sentence each (else none).

    >>> exit_notes([])
    ['nothing was verified here: no row was selected, and a run that verifies no row exits 1']
    """
    if not any(r.status in _VERIFIED for r in results):
        if not results:
            what = "no row was selected"
        else:
            counts = [
                f"{sum(r.status == status for r in results)} {words}"
                for status, words in (("not_verified", "not verified here"), ("skipped", "skipped"))
                if any(r.status == status for r in results)
            ]
            what = f"of {len(results)} rows, " + " and ".join(counts)
        return [f"nothing was verified here: {what}, and a run that verifies no row exits 1"]
    unverified = sum(r.status == "not_verified" for r in results)
    if strict and unverified:
        return [
            f"--strict counts the {unverified} rows not verified here as failures, so the run "
            "exits 1"
        ]
    return []


def to_json(
    results: Sequence[RowResult],
    *,
    versions: Mapping[str, str | None] | None = None,
    context: ReleaseContext | None = None,
) -> dict[str, Any]:
    """The ``--json`` document: the torch version, the release context, one object per row.

    Top level: ``torch`` (the installed version), ``release`` (``installed``, ``compared_with``,
    ``verified``, ``note``: see :class:`ReleaseContext`), ``versions`` when given (the ``--all``
    run: each package's installed version, null where it is not installed), and ``rows``.
    Every row has ``id``, ``api``, ``argument``, ``expected`` (for the release it is compared
    with), ``expected_for`` (that release; null for the other frameworks' rows), ``changed_in``
    (the releases ``X.Y`` where the row's behaviour changed), ``observed``, ``ok`` and
    ``status``, ``backends`` (the SDPA kernels the probe's default-choice calls ran on, empty
    for rows that call no SDPA); ``docs_say`` where the documentation disagrees; ``reason`` for
    rows not verified or skipped.
    """
    context = context if context is not None else release_context()
    rows: list[dict[str, Any]] = []
    for result in results:
        claim = result.claim
        row: dict[str, Any] = {
            "id": claim.id,
            "api": claim.api,
            "argument": claim.argument,
            "expected": result.expected,
            "expected_for": result.release,
            "changed_in": [change.since for change in claim.changes],
            "observed": result.observed,
            "ok": result.ok,
            "status": result.status,
            "backends": list(result.backends),
        }
        if claim.docs_say is not None:
            row["docs_say"] = claim.docs_say
        if result.reason is not None:
            row["reason"] = result.reason
        rows.append(row)
    document: dict[str, Any] = {
        "torch": torch.__version__,
        "release": {
            "installed": context.installed,
            "compared_with": context.compared_with,
            "verified": list(context.verified),
            "note": context.note,
        },
    }
    if versions is not None:
        document["versions"] = dict(versions)
    document["rows"] = rows
    return document


_MARK: Mapping[Status, str] = {
    "ok": "ok",
    "mismatch": "FAIL",
    "probe_error": "FAIL",
    "not_verified": "skip",
    "skipped": "skip",
}


def format_table(
    results: Sequence[RowResult],
    *,
    versions: Mapping[str, str | None] | None = None,
    context: ReleaseContext | None = None,
    strict: bool = False,
) -> str:
    """The human-readable table: one line per row, then a count, then every failure spelled out.

    ``versions`` (the ``--all`` run) adds a line naming each package's installed version; a
    release context with a note (a torch release that is not verified) adds that note.  After
    the count, :func:`exit_notes` says why a run without a failing row exits 1 (``strict``: the
    rows not verified here count as failures).
    """
    context = context if context is not None else release_context()
    cuda = "available" if torch.cuda.is_available() else "not available"
    lines = [f"mask semantics on torch {torch.__version__} (CUDA {cuda})", ""]
    if context.note is not None:
        lines[1:1] = [f"note: {context.note}"]
    if versions is not None:
        shown = ", ".join(
            f"{name} {version or 'not installed'}" for name, version in versions.items()
        )
        lines[1:1] = [f"packages: {shown}"]
    width = max((len(r.claim.id) for r in results), default=10)
    for result in results:
        claim = result.claim
        if result.status == "ok":
            shown = result.expected
            if claim.docs_say == "unspecified":
                shown += "   (not documented)"
            elif claim.docs_say is not None and claim.docs_say != result.expected:
                shown += f"   (docs say: {claim.docs_say})"
            if claim.changes:
                shown += "   (changed in " + ", ".join(c.since for c in claim.changes) + ")"
        elif result.status == "not_verified":
            shown = f"not verified here: {result.reason}"
        elif result.status == "skipped":
            shown = f"skipped: {result.reason}"
        else:
            shown = f"expected {result.expected}, observed {result.observed}"
        lines.append(f"{_MARK[result.status]:<4} {claim.id:<{width}}  {shown}")
    counts = {status: sum(r.status == status for r in results) for status in _MARK}
    failed = counts["mismatch"] + counts["probe_error"]
    summary = (
        f"{len(results)} rows: {counts['ok']} ok, {failed} failed, "
        f"{counts['not_verified']} not verified here"
    )
    if counts["skipped"]:
        summary += f", {counts['skipped']} skipped"
    lines += ["", summary, *exit_notes(results, strict=strict)]
    for result in results:
        if result.status in ("mismatch", "probe_error"):
            lines.append(
                f"FAILED {result.claim.id} ({result.claim.api}, {result.claim.argument}): "
                f"expected {result.expected!r}"
                + (
                    f" on {result.claim.framework} {result.release}"
                    if result.release is not None
                    else ""
                )
                + f", observed {result.observed!r}"
            )
    return "\n".join(lines)
