"""Run the probes against the claims and report each row: ok, mismatch, probe error, not verified.

A probe that raises fails its own row (``observed = "probe raised: <ExcType>: message"``) and the
other rows still run.  A row whose claim ``requires`` hardware this machine lacks (a CUDA device)
is *not verified*: ``ok`` is false, ``status`` is ``"not_verified"``, ``observed`` is null, and it
does not count towards the exit status unless ``strict`` is set.

>>> from attention.semantics.claims import load_claims
>>> results = run(load_claims(), only=["sdpa.attn_mask.float"])
>>> [(row.claim.id, row.status, row.observed) for row in results]
[('sdpa.attn_mask.float', 'ok', 'additive')]
>>> exit_status(results)
0
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from attention.semantics.claims import Claim
from attention.semantics.registry import Probe, probes_for

__all__ = [
    "RowResult",
    "Status",
    "exit_status",
    "format_table",
    "missing_requirement",
    "run",
    "select",
    "to_json",
]

Status = Literal["ok", "mismatch", "probe_error", "not_verified"]


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


def select(claims: Sequence[Claim], only: Iterable[str] | None) -> list[Claim]:
    """The claims whose id equals, or starts with ``prefix + "."``, any of ``only`` (all if None).

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
        raise KeyError(f"no claim id matches {unmatched}")
    return chosen


def _run_one(claim: Claim, probe: Probe | None) -> RowResult:
    reason = missing_requirement(claim.requires)
    if reason is not None:
        return RowResult(claim, "not_verified", None, reason)
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


def run(
    claims: Sequence[Claim],
    *,
    only: Iterable[str] | None = None,
    probes: Callable[[str], Mapping[str, Probe]] = probes_for,
) -> list[RowResult]:
    """Run the probe of every selected claim, in the order of the claims file."""
    chosen = select(claims, only)
    tables = {framework: probes(framework) for framework in {c.framework for c in chosen}}
    return [_run_one(claim, tables[claim.framework].get(claim.id)) for claim in chosen]


def exit_status(results: Sequence[RowResult], *, strict: bool = False) -> int:
    """0 when every verified row is ok (with ``strict``, every row, not-verified ones too), else 1.

    An empty selection is a failure: a check that checked nothing must not pass.
    """
    if not results:
        return 1
    counted = [r for r in results if strict or r.status != "not_verified"]
    return 0 if all(r.ok for r in counted) else 1


def to_json(results: Sequence[RowResult]) -> dict[str, Any]:
    """The ``--json`` document: the torch version and one object per row.

    Every row has ``id``, ``api``, ``argument``, ``expected``, ``observed``, ``ok`` and
    ``status``; ``docs_say`` where the documentation disagrees; ``reason`` for rows not verified.
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
    return {"torch": torch.__version__, "rows": rows}


_MARK: Mapping[Status, str] = {
    "ok": "ok",
    "mismatch": "FAIL",
    "probe_error": "FAIL",
    "not_verified": "skip",
}


def format_table(results: Sequence[RowResult]) -> str:
    """The human-readable table: one line per row, then a count, then every failure spelled out."""
    cuda = "available" if torch.cuda.is_available() else "not available"
    lines = [f"mask semantics on torch {torch.__version__} (CUDA {cuda})", ""]
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
        else:
            shown = f"expected {claim.expected}, observed {result.observed}"
        lines.append(f"{_MARK[result.status]:<4} {claim.id:<{width}}  {shown}")
    counts = {status: sum(r.status == status for r in results) for status in _MARK}
    failed = counts["mismatch"] + counts["probe_error"]
    lines += [
        "",
        f"{len(results)} rows: {counts['ok']} ok, {failed} failed, "
        f"{counts['not_verified']} not verified here",
    ]
    for result in results:
        if result.status in ("mismatch", "probe_error"):
            lines.append(
                f"FAILED {result.claim.id} ({result.claim.api}, {result.claim.argument}): "
                f"expected {result.claim.expected!r}, observed {result.observed!r}"
            )
    return "\n".join(lines)
