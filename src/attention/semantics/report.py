"""Run the probes against the claims and report each row: ok, failed, not verified, or skipped.

A probe that raises fails its own row (``observed = "probe raised: <ExcType>: message"``) and the
other rows still run.  A row whose claim ``requires`` hardware this machine lacks (a CUDA device)
is *not verified*: ``ok`` is false, ``status`` is ``"not_verified"``, ``observed`` is null, and it
does not count towards the exit status unless ``strict`` is set.  A row about a framework that is
not installed here (``jax``, ``transformers``, ...) is *skipped* the same way, with ``status``
``"skipped"`` and the reason (``"jax is not installed"``); its framework is never imported.

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

from attention.semantics.claims import Claim
from attention.semantics.registry import Probe, missing_framework, probes_for

__all__ = [
    "RowResult",
    "Status",
    "UnknownClaimIdError",
    "exit_status",
    "format_table",
    "missing_requirement",
    "run",
    "select",
    "skip_reasons",
    "to_json",
]

Status = Literal["ok", "mismatch", "probe_error", "not_verified", "skipped"]


@dataclass(frozen=True)
class RowResult:
    """The outcome of one claim's probe on this machine."""

    claim: Claim
    status: Status
    observed: str | None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """True only for a row whose probe ran here and saw the expected value."""
        return self.status == "ok"


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


def _run_one(claim: Claim, probe: Probe | None, skipped: str | None = None) -> RowResult:
    reason = missing_requirement(claim.requires)
    if reason is not None:
        return RowResult(claim, "not_verified", None, reason)
    if skipped is not None:
        return RowResult(claim, "skipped", None, skipped)
    if probe is None:
        return RowResult(claim, "probe_error", "no probe is registered for this claim")
    try:
        with warnings.catch_warnings():
            # framework warnings (deprecations, "unfused implementation") would bury the table;
            # probes that are about a warning record it themselves
            warnings.simplefilter("ignore")
            observed = probe()
    except Exception as error:
        return RowResult(claim, "probe_error", f"probe raised: {type(error).__name__}: {error}")
    return RowResult(claim, "ok" if observed == claim.expected else "mismatch", observed)


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
) -> list[RowResult]:
    """Run the probe of every selected claim, in the order of the claims file.

    The probes of a framework that is not installed are neither imported nor run: its rows come
    back skipped.
    """
    chosen = select(claims, only)
    skipped = skip_reasons(chosen)
    tables = {
        framework: probes(framework) if reason is None else {}
        for framework, reason in skipped.items()
    }
    return [
        _run_one(claim, tables[claim.framework].get(claim.id), skipped[claim.framework])
        for claim in chosen
    ]


def exit_status(results: Sequence[RowResult], *, strict: bool = False) -> int:
    """0 when every verified row is ok (with ``strict``, every row, not-verified ones too), else 1.

    Skipped rows (their framework is not installed) never count: a missing framework is reported,
    not failed.  An empty selection is a failure, and so is one whose rows were all skipped: a
    check that checked nothing must not pass.
    """
    if all(r.status == "skipped" for r in results):
        return 1  # no row, or none whose framework is installed
    counted = [
        r for r in results if r.status != "skipped" and (strict or r.status != "not_verified")
    ]
    return 0 if all(r.ok for r in counted) else 1


def to_json(
    results: Sequence[RowResult], *, versions: Mapping[str, str | None] | None = None
) -> dict[str, Any]:
    """The ``--json`` document: the torch version, one object per row, and ``versions`` if given.

    Every row has ``id``, ``api``, ``argument``, ``expected``, ``observed``, ``ok`` and
    ``status``; ``docs_say`` where the documentation disagrees; ``reason`` for rows not verified
    or skipped.  ``versions`` (the ``--all`` run) maps each package to its installed version,
    null where it is not installed.
    """
    rows: list[dict[str, Any]] = []
    for result in results:
        claim = result.claim
        row: dict[str, Any] = {
            "id": claim.id,
            "api": claim.api,
            "argument": claim.argument,
            "expected": claim.expected,
            "observed": result.observed,
            "ok": result.ok,
            "status": result.status,
        }
        if claim.docs_say is not None:
            row["docs_say"] = claim.docs_say
        if result.reason is not None:
            row["reason"] = result.reason
        rows.append(row)
    document: dict[str, Any] = {"torch": torch.__version__}
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
    results: Sequence[RowResult], *, versions: Mapping[str, str | None] | None = None
) -> str:
    """The human-readable table: one line per row, then a count, then every failure spelled out.

    ``versions`` (the ``--all`` run) adds a line naming each package's installed version.
    """
    cuda = "available" if torch.cuda.is_available() else "not available"
    lines = [f"mask semantics on torch {torch.__version__} (CUDA {cuda})", ""]
    if versions is not None:
        shown = ", ".join(
            f"{name} {version or 'not installed'}" for name, version in versions.items()
        )
        lines[1:1] = [f"packages: {shown}"]
    width = max((len(r.claim.id) for r in results), default=10)
    for result in results:
        claim = result.claim
        if result.status == "ok":
            shown = claim.expected
            if claim.docs_say == "unspecified":
                shown += "   (not documented)"
            elif claim.disagrees_with_docs:
                shown += f"   (docs say: {claim.docs_say})"
        elif result.status == "not_verified":
            shown = f"not verified here: {result.reason}"
        elif result.status == "skipped":
            shown = f"skipped: {result.reason}"
        else:
            shown = f"expected {claim.expected}, observed {result.observed}"
        lines.append(f"{_MARK[result.status]:<4} {claim.id:<{width}}  {shown}")
    counts = {status: sum(r.status == status for r in results) for status in _MARK}
    failed = counts["mismatch"] + counts["probe_error"]
    summary = (
        f"{len(results)} rows: {counts['ok']} ok, {failed} failed, "
        f"{counts['not_verified']} not verified here"
    )
    if counts["skipped"]:
        summary += f", {counts['skipped']} skipped"
    lines += ["", summary]
    for result in results:
        if result.status in ("mismatch", "probe_error"):
            lines.append(
                f"FAILED {result.claim.id} ({result.claim.api}, {result.claim.argument}): "
                f"expected {result.claim.expected!r}, observed {result.observed!r}"
            )
    return "\n".join(lines)
