"""The verification records: which versions the claims were last checked on, and what each row saw.

``python -m attention.semantics --record conf/semantics-verified.json`` writes the PyTorch record
after a run in which every verified row was ok.  ``python -m attention.semantics --all --record
conf/semantics-ecosystem-verified.json`` (what ``nox -s semantics_ecosystem`` runs) writes the
record of the other frameworks' rows, with the version of every package and the date.  The site
shows each row's versions from these files, and fast tests compare the digests of the current
claims and probes with the digests stored here, so neither the claims nor a probe can change
without a fresh record.

The digest covers what decides a verdict -- each claim's id, framework, API, argument, expected
value and requirement, plus the source of its probe -- and not the prose: fixing a translation
does not invalidate the record, changing what is checked does.  For the other frameworks the
probe's source is its whole module (:func:`ecosystem_digest`), read as text: helpers there decide
verdicts too, and reading the file needs none of those frameworks.

>>> from attention.semantics.claims import load_claims
>>> digest = claims_digest(load_claims())
>>> len(digest), digest == claims_digest(load_claims())
(64, True)
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import inspect
import json
import platform
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from attention.semantics.claims import Claim
from attention.semantics.registry import (
    FRAMEWORK_MODULES,
    Probe,
    installed_versions,
    keras_backend,
    probes_for,
)
from attention.semantics.report import RowResult

__all__ = [
    "claims_digest",
    "default_ecosystem_record_path",
    "default_record_path",
    "ecosystem_digest",
    "load_record",
    "make_ecosystem_record",
    "make_record",
    "write_record",
]


def default_record_path() -> Path:
    """``conf/semantics-verified.json`` next to the claims file of a source checkout."""
    return Path(__file__).resolve().parents[3] / "conf" / "semantics-verified.json"


def default_ecosystem_record_path() -> Path:
    """``conf/semantics-ecosystem-verified.json``: the record of the other frameworks' rows."""
    return Path(__file__).resolve().parents[3] / "conf" / "semantics-ecosystem-verified.json"


def _checked_fields(claim: Claim) -> dict[str, Any]:
    """The fields of ``claim`` that decide its verdict; both digests cover them."""
    return {
        "id": claim.id,
        "framework": claim.framework,
        "api": claim.api,
        "argument": claim.argument,
        "expected": claim.expected,
        "requires": claim.requires,
    }


def claims_digest(
    claims: Sequence[Claim], probes: Callable[[str], Mapping[str, Probe]] = probes_for
) -> str:
    """SHA-256 over what decides each verdict: the claim's checked fields and its probe's source."""
    tables = {framework: probes(framework) for framework in {c.framework for c in claims}}
    parts = []
    for claim in claims:
        probe = tables[claim.framework].get(claim.id)
        source = inspect.getsource(probe) if probe is not None else None
        parts.append({**_checked_fields(claim), "probe": source})
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _module_source(framework: str) -> str:
    """The text of ``framework``'s probe module, found without importing it."""
    spec = importlib.util.find_spec(FRAMEWORK_MODULES[framework])
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"no source for {FRAMEWORK_MODULES[framework]}")
    return Path(spec.origin).read_text(encoding="utf-8")


def ecosystem_digest(claims: Sequence[Claim]) -> str:
    """SHA-256 over each claim's checked fields and the whole source of its framework's probes.

    Imports none of the frameworks, so the fast tests and the site build can compare it with the
    record on a machine without them.

    >>> from attention.semantics.claims import load_ecosystem_claims
    >>> len(ecosystem_digest(load_ecosystem_claims()))
    64
    """
    sources = {framework: _module_source(framework) for framework in {c.framework for c in claims}}
    parts = [
        {
            **_checked_fields(claim),
            "probes": hashlib.sha256(sources[claim.framework].encode("utf-8")).hexdigest(),
        }
        for claim in claims
    ]
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_ecosystem_record(
    claims: Sequence[Claim],
    results: Sequence[RowResult],
    *,
    today: datetime.date | None = None,
) -> dict[str, Any]:
    """The record of a run over every claim about the other frameworks.

    Refuses a partial run, a failing row, and a skipped one: a record states what was verified,
    so each of those frameworks must be installed.  Rows that need a CUDA device are recorded as
    not verified.  The record names the version of every package involved, the Keras backend and
    the date (UTC) of the run.
    """
    if [r.claim.id for r in results] != [c.id for c in claims]:
        raise ValueError("a record must cover every claim; run with --all and without --only")
    failed = [r.claim.id for r in results if r.status in ("mismatch", "probe_error")]
    if failed:
        raise ValueError(f"refusing to record a run with failing rows: {failed}")
    skipped = sorted(
        {f"{r.claim.framework} ({r.reason})" for r in results if r.status == "skipped"}
    )
    if skipped:
        raise ValueError(f"refusing to record a run in which frameworks were skipped: {skipped}")
    day = today if today is not None else datetime.datetime.now(datetime.UTC).date()
    return {
        "claims_sha256": ecosystem_digest(claims),
        "date": day.isoformat(),
        "python": platform.python_version(),
        "versions": installed_versions(),
        "keras_backend": keras_backend(),
        "rows": {
            r.claim.id: {"status": r.status, "observed": r.observed, "reason": r.reason}
            for r in results
        },
    }


def make_record(
    claims: Sequence[Claim],
    results: Sequence[RowResult],
    *,
    today: datetime.date | None = None,
) -> dict[str, Any]:
    """The record of a run over all ``claims``; refuses a partial or failing run.

    The record names the torch release and the date (UTC) of the run, which the site shows on
    every row; apart from the date, the same torch and the same outcomes give the same file.
    """
    if [r.claim.id for r in results] != [c.id for c in claims]:
        raise ValueError("a record must cover every claim; run without --only")
    failed = [r.claim.id for r in results if r.status in ("mismatch", "probe_error")]
    if failed:
        raise ValueError(f"refusing to record a run with failing rows: {failed}")
    day = today if today is not None else datetime.datetime.now(datetime.UTC).date()
    return {
        "claims_sha256": claims_digest(claims),
        "date": day.isoformat(),
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
