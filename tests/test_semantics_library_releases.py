"""The transformers, onnxruntime and keras records agree with the claims, release by release.

Fast, and in the default run: nothing here installs or runs a framework.  Each record in
conf/records/libraries/ was written by ``nox -s semantics_releases`` on one release of
conf/library-releases.toml (``python -m attention.semantics --release-record FRAMEWORK``); these
tests fail when a claim, a probe or the list of releases changed since, so the site never shows a
result per release that the current claims would not produce.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from attention.semantics import paths
from attention.semantics.claims import Claim, expected_for, load_ecosystem_claims, release_tuple
from attention.semantics.record import claims_digest, load_record

ECOSYSTEM = load_ecosystem_claims()
RELEASES = paths.library_releases()
LISTED = [(framework, release) for framework, releases in RELEASES.items() for release in releases]
COMMAND = "nox -s semantics_releases"


def rows_of(framework: str) -> list[Claim]:
    return [claim for claim in ECOSYSTEM if claim.framework == framework]


def disagreements(record: dict[str, Any], claims: list[Claim], release: str) -> list[str]:
    """Every way ``record`` disagrees with ``claims`` on the framework's ``release``."""
    problems = []
    if record.get("claims_sha256") != claims_digest(claims):
        problems.append("the claims or a probe changed since the record was written")
    rows = record.get("rows", {})
    for claim in claims:
        row = rows.get(claim.id)
        if row is None:
            problems.append(f"{claim.id}: missing from the record")
            continue
        expected = expected_for(claim, release)
        if row["status"] == "ok" and row["observed"] != expected:
            problems.append(
                f"{claim.id}: the record observed {row['observed']!r}, the claims expect "
                f"{expected!r} on {claim.framework} {release}"
            )
        elif row["status"] == "not_verified" and claim.requires is None:
            problems.append(f"{claim.id}: not verified, but it needs no special hardware")
        elif row["status"] not in ("ok", "not_verified"):
            problems.append(f"{claim.id}: recorded as {row['status']}")
    problems += [
        f"{extra}: in the record, not in the claims" for extra in set(rows) - {c.id for c in claims}
    ]
    return problems


def test_every_listed_release_has_a_record_and_every_record_is_listed() -> None:
    expected = {paths.library_record(framework, release) for framework, release in LISTED}
    found = set(paths.library_record_files())
    problems = [f"no record {p.name}: run {COMMAND}" for p in sorted(expected - found)]
    problems += [f"{p.name}: not listed in {paths.LIBRARY_RELEASES.name}" for p in found - expected]
    assert not problems, "; ".join(problems)


def test_three_or_more_releases_of_each_framework_span_the_pinned_one() -> None:
    pinned = paths.pins(paths.ECOSYSTEM_CONSTRAINTS)
    assert set(RELEASES) == {"transformers", "onnxruntime", "keras"}
    for framework, releases in RELEASES.items():
        assert len(releases) >= 3, framework
        assert releases[-1] == pinned[framework], f"the newest {framework} must be the pinned one"


@pytest.mark.parametrize(("framework", "release"), LISTED, ids=[f"{f}-{r}" for f, r in LISTED])
def test_the_record_of_each_release_agrees_with_the_claims(framework: str, release: str) -> None:
    path = paths.library_record(framework, release)
    record = load_record(path)
    assert record["framework"] == framework
    assert record["release"] == release
    assert paths.release_of(record["versions"][framework]) == release
    assert record["claims"] == paths.ECOSYSTEM_CLAIMS.name
    pinned_torch = paths.pins(paths.CONSTRAINTS)["torch"]
    assert paths.release_of(record["torch"]) == pinned_torch, "torch stays the pinned release"
    datetime.date.fromisoformat(record["date"])
    claims = rows_of(framework)
    assert list(record["rows"]) == [claim.id for claim in claims]
    problems = disagreements(record, claims, release)
    assert not problems, f"{path.name}: " + "; ".join(problems) + f" (run {COMMAND})"


def test_every_change_lies_within_the_verified_releases() -> None:
    """A change since X.Y is seen between two recorded releases, never before or after them."""
    for claim in ECOSYSTEM:
        if not claim.changes:
            continue
        releases = [release_tuple(r) for r in RELEASES[claim.framework]]
        for change in claim.changes:
            assert releases[0] < release_tuple(change.since) <= releases[-1], (claim.id, change)
            assert release_tuple(change.since) in {r[:2] for r in releases}, (
                f"{claim.id}: the change since {change.since} names no recorded release"
            )


def test_the_rows_that_changed_across_releases() -> None:
    """What the records show: the rows whose value differs between two releases."""
    changed = {claim.id for claim in ECOSYSTEM if claim.changes or claim.introduced}
    for framework, releases in RELEASES.items():
        records = [load_record(paths.library_record(framework, r)) for r in releases]
        for claim in rows_of(framework):
            seen = {rec["rows"][claim.id]["observed"] for rec in records}
            seen.discard(None)
            assert (len(seen) > 1) == (claim.id in changed), (claim.id, seen)


# --- the check can fail ---------------------------------------------------------------------------


def test_a_flipped_expectation_on_one_release_is_named() -> None:
    framework, release = "onnxruntime", RELEASES["onnxruntime"][-1]
    record = load_record(paths.library_record(framework, release))  # upper_left there
    claims = [
        Claim(**{**vars(claim), "changes": ()})
        if claim.id == "onnxruntime.Attention.is_causal.alignment.single_query"
        else claim
        for claim in rows_of(framework)
    ]
    problems = disagreements(record, claims, release)  # without its change: lower_right
    assert any(
        p.startswith("onnxruntime.Attention.is_causal.alignment.single_query: the record observed")
        for p in problems
    ), problems


def test_the_keras_records_ran_on_the_jax_backend_with_the_pinned_jax() -> None:
    pinned = paths.pins(paths.ECOSYSTEM_CONSTRAINTS)
    for release in RELEASES["keras"]:
        record = load_record(paths.library_record("keras", release))
        assert record["keras_backend"] == "jax", release
        assert record["versions"]["jax"] == pinned["jax"], release


def test_a_keras_row_without_its_change_is_named_on_the_release_after_it() -> None:
    claim_id = "keras.MultiHeadAttention.fully_masked_row.return_attention_scores"
    release = RELEASES["keras"][-1]
    record = load_record(paths.library_record("keras", release))  # zeros from 3.10
    claims = [
        Claim(**{**vars(claim), "changes": ()}) if claim.id == claim_id else claim
        for claim in rows_of("keras")
    ]
    problems = disagreements(record, claims, release)  # without its change: uniform
    assert any(p.startswith(f"{claim_id}: the record observed 'zeros'") for p in problems), problems


# --- the data and the command refuse what they cannot state ---------------------------------------


def _row(framework: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{framework}.example.row",
        "framework": framework,
        "api": "f",
        "argument": {"en": "x", "zh": "x"},
        "expected": "zeros",
        "docs": "https://example.org",
        "explanation": {"en": "e", "zh": "e"},
        "reproduce": ">>> 1\n1",
        **extra,
    }


CHANGE = {"since": "4.53", "expected": "nan", "note": {"en": "n", "zh": "n"}}


def test_a_transformers_row_is_stated_per_transformers_release() -> None:
    from attention.semantics.claims import parse_claims

    (claim,) = parse_claims({"claims": [_row("transformers", changes=[CHANGE])]})
    assert expected_for(claim, "4.52.4") == "zeros"
    assert expected_for(claim, "4.53.3") == "nan"
    assert expected_for(claim, "5.24.0") == "nan"


def test_a_row_of_a_framework_without_releases_cannot_have_changes() -> None:
    from attention.semantics.claims import ClaimsError, parse_claims

    with pytest.raises(ClaimsError, match="changes are per release of torch, transformers, "):
        parse_claims({"claims": [_row("jax", changes=[CHANGE])]})
    with pytest.raises(ClaimsError, match="introduced is a release of"):
        parse_claims({"claims": [_row("mlx", introduced="0.20")]})


def test_the_release_list_refuses_a_bad_entry(tmp_path: Any) -> None:
    bad = tmp_path / "library-releases.toml"
    bad.write_text('[transformers]\nreleases = ["5.24.0", "4.52.4"]\n')
    with pytest.raises(ValueError, match="oldest first"):
        paths.library_releases(bad)
    bad.write_text('[transformers]\nreleases = ["4.52"]\n')
    with pytest.raises(ValueError, match=r"a release is 'X\.Y\.Z', got '4\.52'"):
        paths.library_releases(bad)


def test_release_record_refuses_a_framework_without_releases(capsys: Any) -> None:
    from attention.semantics.__main__ import main

    assert main(["--release-record", "jax"]) == 2
    assert (
        "--release-record takes one of transformers, onnxruntime, keras" in capsys.readouterr().err
    )
    assert main(["--release-record", "transformers", "--only", "transformers.llama"]) == 2
    assert "drop --only" in capsys.readouterr().err
