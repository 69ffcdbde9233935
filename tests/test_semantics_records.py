"""The records agree with the claims: every verified release, every row, the expectation per release.

Fast, and in the default run: nothing here runs a probe.  Each record in conf/records/ was written
by a run on one torch release (``nox -s semantics_matrix``) or with the other frameworks (``nox -s
semantics_ecosystem``); these tests fail when a claim, a probe or the list of releases changed
since, so the site never shows a result that the current claims would not produce.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from attention.semantics import paths
from attention.semantics.claims import (
    VERSIONED,
    Claim,
    expected_for,
    load_claims,
    load_ecosystem_claims,
    release_tuple,
)
from attention.semantics.record import claims_digest, load_record, record_release

CLAIMS = load_claims()
ECOSYSTEM = load_ecosystem_claims()
RELEASES = [release.torch for release in paths.torch_releases()]
COMMAND = "nox -s semantics_matrix"


def disagreements(record: dict[str, Any], claims: list[Claim], release: str | None) -> list[str]:
    """Every way ``record`` disagrees with ``claims`` (on torch ``release``), one line each."""
    problems = []
    if record.get("claims_sha256") != claims_digest(claims):
        problems.append("the claims or a probe changed since the record was written")
    rows = record.get("rows", {})
    for claim in claims:
        row = rows.get(claim.id)
        if row is None:
            problems.append(f"{claim.id}: missing from the record")
            continue
        if release is not None:
            expected = expected_for(claim, release)
        elif claim.framework in VERSIONED:  # transformers, onnxruntime, keras: per their own
            expected = expected_for(claim, record["versions"][claim.framework])
        else:
            expected = claim.expected
        if row["status"] == "ok" and row["observed"] != expected:
            problems.append(
                f"{claim.id}: the record observed {row['observed']!r}, the claims expect "
                f"{expected!r}" + (f" on torch {release}" if release else "")
            )
        elif row["status"] == "not_verified" and claim.requires is None:
            problems.append(f"{claim.id}: not verified, but it needs no special hardware")
        elif row["status"] not in ("ok", "not_verified"):
            problems.append(f"{claim.id}: recorded as {row['status']}")
    problems += [
        f"{extra}: in the record, not in the claims" for extra in set(rows) - {c.id for c in claims}
    ]
    return problems


def pins(*files: Path) -> dict[str, str]:
    return paths.pins(*files)


def listing_problems(releases: list[str], names: set[str]) -> list[str]:
    """Releases without a record and records of releases not listed, among the file ``names``."""
    expected = {paths.torch_record(release).name for release in releases}
    problems = [f"no record {name}: run {COMMAND}" for name in sorted(expected - names)]
    extra = names - expected - {paths.ECOSYSTEM_RECORD.name}
    problems += [f"{name}: a release not in {paths.RELEASES.name}" for name in sorted(extra)]
    return problems


def test_every_listed_release_has_a_record_and_every_record_is_listed() -> None:
    problems = listing_problems(RELEASES, {path.name for path in paths.record_files()})
    assert not problems, "; ".join(problems)


@pytest.mark.parametrize("release", RELEASES)
def test_the_record_of_each_release_agrees_with_the_claims(release: str) -> None:
    path = paths.torch_record(release)
    record = load_record(path)
    assert record_release(record) == release, f"{path.name} was made on torch {record['torch']}"
    assert record["claims"] == paths.CLAIMS.name
    assert record["versions"] == {"torch": record["torch"]}
    datetime.date.fromisoformat(record["date"])
    assert list(record["rows"]) == [claim.id for claim in CLAIMS]
    problems = disagreements(record, CLAIMS, release)
    assert not problems, f"{path.name}: " + "; ".join(problems) + f" (run {COMMAND})"


def test_the_ecosystem_record_agrees_with_the_claims_and_the_pins() -> None:
    record = load_record(paths.ECOSYSTEM_RECORD)
    assert record["claims"] == paths.ECOSYSTEM_CLAIMS.name
    problems = disagreements(record, ECOSYSTEM, None)
    assert not problems, "; ".join(problems) + " (run nox -s semantics_ecosystem)"
    pinned = pins(paths.CONSTRAINTS, paths.ECOSYSTEM_CONSTRAINTS)
    for name in ("jax", "jaxlib", "flax", "keras", "transformers", "onnx", "onnxruntime", "mlx"):
        assert record["versions"][name] == pinned[name], name
    assert paths.release_of(record["torch"]) == pinned["torch"]
    assert record["keras_backend"] == "jax"
    datetime.date.fromisoformat(record["date"])


def test_the_default_torch_is_a_verified_release() -> None:
    """The other releases' pins are generated (conf/torch_pins.py); the default run's are these."""
    default = pins(paths.CONSTRAINTS)["torch"]
    assert default in RELEASES, "the default run's torch must be a verified release"


def test_every_change_is_at_or_before_the_latest_verified_release() -> None:
    latest = max(release_tuple(release) for release in RELEASES)
    oldest = min(release_tuple(release) for release in RELEASES)
    for claim in CLAIMS:
        for change in claim.changes:
            assert oldest < release_tuple(change.since) <= latest, (claim.id, change.since)


# --- the check can fail ---------------------------------------------------------------------------


def flipped(claim_id: str, expected: str) -> list[Claim]:
    return [
        Claim(**{**vars(claim), "expected": expected}) if claim.id == claim_id else claim
        for claim in CLAIMS
    ]


def test_a_flipped_expectation_is_named() -> None:
    record = load_record(paths.torch_record(RELEASES[0]))
    claims = flipped("sdpa.attn_mask.bool", "forbidden")
    problems = disagreements(record, claims, RELEASES[0])
    assert "sdpa.attn_mask.bool: the record observed 'allowed', the claims expect " in "".join(
        problems
    )


def test_a_flipped_expectation_of_another_framework_is_named() -> None:
    record = load_record(paths.ECOSYSTEM_RECORD)
    claims = [
        Claim(**{**vars(claim), "expected": "lower_right"})
        if claim.id == "onnxruntime.Attention.is_causal.alignment"
        else claim
        for claim in ECOSYSTEM
    ]
    problems = "".join(disagreements(record, claims, None))
    assert "onnxruntime.Attention.is_causal.alignment: the record observed 'upper_left'" in problems


def test_a_missing_row_an_unlisted_record_and_a_missing_record_are_named() -> None:
    record = load_record(paths.torch_record(RELEASES[-1]))
    del record["rows"]["sdpa.scale.default"]
    assert "sdpa.scale.default: missing from the record" in disagreements(
        record, CLAIMS, RELEASES[-1]
    )
    names = {path.name for path in paths.record_files()}
    assert sorted(listing_problems(RELEASES[:1], names)) == sorted(
        f"torch-{release}.json: a release not in torch-releases.toml" for release in RELEASES[1:]
    )
    assert listing_problems([*RELEASES, "2.99.0"], names) == [
        f"no record torch-2.99.0.json: run {COMMAND}"
    ]


def test_a_record_made_on_another_release_disagrees_where_the_behaviour_changed() -> None:
    # the oldest release's record read as if it were the newest's: every row whose behaviour
    # differs between them (a change, or an API the oldest does not have) must be named
    changed = [c for c in CLAIMS if expected_for(c, RELEASES[0]) != expected_for(c, RELEASES[-1])]
    assert changed, "no row changed between the verified releases"
    old = load_record(paths.torch_record(RELEASES[0]))
    problems = disagreements(old, CLAIMS, RELEASES[-1])
    assert {problem.split(":")[0] for problem in problems} == {claim.id for claim in changed}


def test_records_are_stable_json() -> None:
    for path in paths.record_files():
        text = path.read_text(encoding="utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n", path.name
