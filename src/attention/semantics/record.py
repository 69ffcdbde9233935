"""The verification record: which torch the claims were last checked on, and what each row saw.

``python -m attention.semantics --record conf/semantics-verified.json`` writes it after a run in
which every verified row was ok.  The site shows each row's torch version from this file, and a
fast test compares :func:`claims_digest` of the current claims and probes with the digest stored
here, so neither the claims nor a probe can change without a fresh record.

The digest covers what decides a verdict -- each claim's id, framework, API, argument, expected
value and requirement, plus the source of its probe -- and not the prose: fixing a translation
does not invalidate the record, changing what is checked does.

>>> from attention.semantics.claims import load_claims
>>> digest = claims_digest(load_claims())
>>> len(digest), digest == claims_digest(load_claims())
(64, True)
"""

from __future__ import annotations

import hashlib
import inspect
import json
import platform
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from attention.semantics.claims import Claim
from attention.semantics.registry import Probe, probes_for
from attention.semantics.report import RowResult

__all__ = ["claims_digest", "default_record_path", "load_record", "make_record", "write_record"]


def default_record_path() -> Path:
    """``conf/semantics-verified.json`` next to the claims file of a source checkout."""
    return Path(__file__).resolve().parents[3] / "conf" / "semantics-verified.json"


def claims_digest(
    claims: Sequence[Claim], probes: Callable[[str], Mapping[str, Probe]] = probes_for
) -> str:
    """SHA-256 over what decides each verdict: the claim's checked fields and its probe's source."""
    tables = {framework: probes(framework) for framework in {c.framework for c in claims}}
    parts = []
    for claim in claims:
        probe = tables[claim.framework].get(claim.id)
        parts.append(
            {
                "id": claim.id,
                "framework": claim.framework,
                "api": claim.api,
                "argument": claim.argument,
                "expected": claim.expected,
                "requires": claim.requires,
                "probe": inspect.getsource(probe) if probe is not None else None,
            }
        )
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_record(claims: Sequence[Claim], results: Sequence[RowResult]) -> dict[str, Any]:
    """The record of a run over all ``claims``; refuses a partial or failing run.

    Deterministic (no clock): the same torch and the same outcomes give the same file.
    """
    if [r.claim.id for r in results] != [c.id for c in claims]:
        raise ValueError("a record must cover every claim; run without --only")
    failed = [r.claim.id for r in results if r.status in ("mismatch", "probe_error")]
    if failed:
        raise ValueError(f"refusing to record a run with failing rows: {failed}")
    return {
        "claims_sha256": claims_digest(claims),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "rows": {
            r.claim.id: {"status": r.status, "observed": r.observed, "reason": r.reason}
            for r in results
        },
    }


def write_record(record: Mapping[str, Any], path: Path | str) -> None:
    """Write ``record`` as stable, diff-friendly JSON."""
    # insertion order, not sorted keys: the rows stay in the order of the claims file
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a record written by :func:`write_record` (default: :func:`default_record_path`)."""
    source = Path(path) if path is not None else default_record_path()
    data: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return data
