"""The verification records: what each row saw, on which versions, on which day.

One format for every record: the PyTorch rows on one torch release
(``conf/records/torch-<release>.json``, written by ``python -m attention.semantics --record``, and
for every release of ``conf/torch-releases.toml`` by ``nox -s semantics_matrix``) and the other
frameworks' rows (``conf/records/ecosystem.json``, ``python -m attention.semantics --all --record``
in ``nox -s semantics_ecosystem``).  Each names the claims file, the digest of the claims and
probes, the date (UTC), Python, torch and every package the rows ran with, each row's status,
observed value and the SDPA kernels its probe's default calls ran on, and (the torch records)
which of the package's own functions run on that release
(:func:`attention.semantics.support.package_support`).  The site shows each row's result per
release from these files, and fast tests compare them with the claims
(:mod:`tests.test_semantics_records`), so neither a claim nor a probe can change without a fresh
record.

The digest covers what decides a verdict -- each claim's id, framework, API, argument, expected
values (with their releases) and requirement, plus the whole source of its framework's probe
modules and of the shared inputs, read as text -- and not the prose: fixing a translation does
not invalidate a record, changing what is checked does.  Reading the sources needs none of the
other frameworks.

>>> from attention.semantics.claims import load_claims
>>> digest = claims_digest(load_claims())
>>> len(digest), digest == claims_digest(load_claims())
(64, True)
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from attention.semantics import paths
from attention.semantics.claims import VERSIONED, Claim
from attention.semantics.registry import (
    FRAMEWORK_MODULES,
    SHARED_MODULES,
    VERIFIED_WITH,
    installed_versions,
    keras_backend,
)
from attention.semantics.report import RowResult
from attention.semantics.support import package_support

__all__ = [
    "claims_digest",
    "default_record_path",
    "load_record",
    "make_record",
    "make_release_record",
    "record_release",
    "write_record",
]


def default_record_path(*, ecosystem: bool = False, root: Path | None = None) -> Path:
    """The record of the installed torch release, or (``ecosystem``) the other frameworks'.

    In ``conf/records/`` of the checkout ``root`` (``python -m attention.semantics --record``
    passes the one it runs in, :func:`attention.semantics.paths.checkout`); without ``root``,
    the records this package reads (:data:`attention.semantics.paths.RECORDS`).

    >>> default_record_path(ecosystem=True).name
    'ecosystem.json'
    >>> default_record_path(ecosystem=True, root=Path("/work/clone")).as_posix()
    '/work/clone/conf/records/ecosystem.json'
    """
    if ecosystem:
        found = paths.ECOSYSTEM_RECORD
    else:
        found = paths.torch_record(paths.release_of(torch.__version__))
    if root is None:
        return found
    return Path(root) / found.relative_to(paths.ROOT)


def record_release(record: Mapping[str, Any]) -> str:
    """The torch release (``X.Y.Z``) a record was made on."""
    return paths.release_of(str(record["torch"]))


def _checked_fields(claim: Claim) -> dict[str, Any]:
    """The fields of ``claim`` that decide its verdict; the digest covers them."""
    fields = {
        "id": claim.id,
        "framework": claim.framework,
        "api": claim.api,
        "argument": claim.argument,
        "expected": claim.expected,
        "changes": [[change.since, change.expected] for change in claim.changes],
        "requires": claim.requires,
    }
    if claim.framework == "torch":  # the release that brought the API: torch rows only
        fields["introduced"] = claim.introduced
    return fields


def _module_source(name: str) -> str:
    """The text of the module ``name``, found without importing it (its package is imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"no source for {name}")
    return Path(spec.origin).read_text(encoding="utf-8")


def _probes_digest(framework: str) -> str:
    text = "".join(
        _module_source(name) for name in (*SHARED_MODULES, *FRAMEWORK_MODULES[framework])
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def claims_digest(claims: Sequence[Claim]) -> str:
    """SHA-256 over each claim's checked fields and the source of its framework's probes.

    Imports none of the other frameworks, so the fast tests and the site build can compare it
    with a record on a machine without them.
    """
    sources = {framework: _probes_digest(framework) for framework in {c.framework for c in claims}}
    parts = [{**_checked_fields(claim), "probes": sources[claim.framework]} for claim in claims]
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_record(
    claims: Sequence[Claim],
    results: Sequence[RowResult],
    *,
    claims_file: str,
    today: datetime.date | None = None,
) -> dict[str, Any]:
    """The record of a run over every one of ``claims`` (read from ``claims_file``).

    Refuses a partial run, a failing row and a skipped one: a record states what was verified,
    so every framework of the claims must be installed.  Rows that need a CUDA device are
    recorded as not verified.  Apart from the date, the same versions and outcomes give the
    same file.
    """
    if [r.claim.id for r in results] != [c.id for c in claims]:
        raise ValueError("a record must cover every claim of its file; run without --only")
    failed = [r.claim.id for r in results if r.status in ("mismatch", "probe_error")]
    if failed:
        raise ValueError(f"refusing to record a run with failing rows: {failed}")
    skipped = sorted(
        {f"{r.claim.framework} ({r.reason})" for r in results if r.status == "skipped"}
    )
    if skipped:
        raise ValueError(f"refusing to record a run in which frameworks were skipped: {skipped}")
    day = today if today is not None else datetime.datetime.now(datetime.UTC).date()
    others = any(claim.framework != "torch" for claim in claims)
    return {
        "claims": claims_file,
        "claims_sha256": claims_digest(claims),
        "date": day.isoformat(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "versions": installed_versions() if others else {"torch": torch.__version__},
        "keras_backend": keras_backend(),
        # which of the package's own functions run on this torch (the torch record only)
        **({} if others else {"package": package_support()}),
        "rows": {
            r.claim.id: {
                "status": r.status,
                "observed": r.observed,
                "reason": r.reason,
                "backends": list(r.backends),
            }
            for r in results
        },
    }


def make_release_record(
    framework: str,
    claims: Sequence[Claim],
    results: Sequence[RowResult],
    *,
    claims_file: str,
    today: datetime.date | None = None,
) -> dict[str, Any]:
    """The record of ``framework``'s rows on its installed release (``conf/records/libraries/``).

    ``claims`` are every row of ``framework`` (transformers, onnxruntime or keras: the frameworks
    whose rows are stated per release); the record names the framework, its release and the versions
    the rows ran with, and each row's result, as :func:`make_record` does.

    >>> make_release_record("jax", [], [], claims_file="x.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: jax rows are not stated per release; only transformers, onnxruntime, keras ...
    """
    versioned = [name for name in VERSIONED if name != "torch"]
    if framework not in versioned:
        raise ValueError(
            f"{framework} rows are not stated per release; only {', '.join(versioned)} have "
            "release records"
        )
    strangers = sorted({c.id for c in claims if c.framework != framework})
    if strangers:
        raise ValueError(f"a {framework} release record holds only {framework} rows: {strangers}")
    record = make_record(claims, results, claims_file=claims_file, today=today)
    versions = record["versions"]
    shown = {name: versions.get(name) for name in ("torch", *VERIFIED_WITH[framework])}
    release = shown[framework]
    if release is None:
        raise ValueError(f"{framework} is not installed")
    if framework != "keras":  # the backend the keras rows ran on stays in theirs
        record.pop("keras_backend")
    return {
        "framework": framework,
        "release": paths.release_of(str(release)),
        **{**record, "versions": shown},
    }


def write_record(record: Mapping[str, Any], path: Path | str) -> None:
    """Write ``record`` as stable, diff-friendly JSON."""
    # insertion order, not sorted keys: the rows stay in the order of the claims file
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a record written by :func:`write_record` (default: :func:`default_record_path`)."""
    source = Path(path) if path is not None else default_record_path()
    data: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return data
