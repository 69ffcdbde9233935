"""The mask-semantics table: claims data, live probes, the command line, and that every row can fail.

``test_row_holds_on_this_torch`` is the live check (one test per row, named by its id).  The flip
tests install a torch that behaves differently in one respect (tests/flipped_torch.py) and show
that ``python -m attention.semantics --json`` then reports the matching rows as not ok and exits
non-zero; a check that could not fail this way would prove nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch

from attention.semantics.__main__ import main
from attention.semantics.claims import (
    VOCABULARY,
    Claim,
    ClaimsError,
    expected_for,
    load_claims,
    parse_claims,
)
from attention.semantics.probes import TORCH_MODULES
from attention.semantics.record import claims_digest, load_record, make_record
from attention.semantics.registry import FRAMEWORK_MODULES, probes_for
from attention.semantics.report import (
    RowResult,
    exit_status,
    format_table,
    release_context,
    run,
)
from tests import flipped_torch as flip

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = load_claims()
BY_ID = {claim.id: claim for claim in CLAIMS}
CUDA = torch.cuda.is_available()
RELEASE = release_context().compared_with
FLIPPED = "2.13.0"
"""The torch release the flips (tests/flipped_torch.py) were written against."""

REQUIRED = [
    "sdpa.attn_mask.bool",
    "sdpa.attn_mask.float",
    "sdpa.is_causal.alignment",
    "sdpa.is_causal_with_attn_mask",
    "sdpa.fully_masked_row",
    "sdpa.dropout_p.without_training_flag",
    "sdpa.scale.default",
    "mha.attn_mask.bool",
    "mha.attn_mask.float",
    "mha.key_padding_mask.bool",
    "mha.key_padding_mask.float",
    "mha.is_causal.without_attn_mask",
    "mha.mixed_mask_dtypes",
    "mha.fully_masked_row.need_weights_true",
    "mha.fully_masked_row.need_weights_false",
    "mha.fully_masked_row.fast_path",
    "transformer.generate_square_subsequent_mask",
    "transformer_encoder_layer.src_key_padding_mask.bool",
    "bias.causal_lower_right.alignment",
    "bias.causal_upper_left.alignment",
    "flex_attention.mask_mod",
]

ROW_KEYS = {
    "id",
    "api",
    "argument",
    "expected",
    "expected_for",
    "changed_in",
    "observed",
    "ok",
    "status",
    "backends",
}
OPTIONAL_ROW_KEYS = {"docs_say", "reason"}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """``main(["--json", *argv])`` in this process: its exit status and its parsed output."""
    capsys.readouterr()
    status = main(["--json", *argv])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, document


def failing(document: dict[str, Any]) -> set[str]:
    return {row["id"] for row in document["rows"] if row["status"] in ("mismatch", "probe_error")}


# --- the claims data -------------------------------------------------------------------------


def test_every_required_row_is_claimed_and_cpu_verifiable() -> None:
    for claim_id in REQUIRED:
        assert claim_id in BY_ID, claim_id
        assert BY_ID[claim_id].requires is None, f"{claim_id} must be verifiable on a CPU machine"


def test_claims_and_probes_match_one_to_one() -> None:
    probes = probes_for("torch")
    assert set(probes) == {claim.id for claim in CLAIMS if claim.framework == "torch"}


def test_the_records_digest_covers_every_torch_probe_module() -> None:
    # a probe module left out of FRAMEWORK_MODULES could change without a record going stale
    assert {module.__name__ for module in TORCH_MODULES} <= set(FRAMEWORK_MODULES["torch"])


def test_every_public_probe_is_registered() -> None:
    # a probe written but never filed under a claim would silently never run
    registered = set(probes_for("torch").values())
    helpers = {"sdpa_weights", "mha_weights", "run_mha"}
    for module in TORCH_MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and name.islower() and name not in helpers:
                assert value in registered, (module.__name__, name)


def test_docs_disagreements_are_explained_in_both_languages() -> None:
    for claim in [c for c in CLAIMS if c.docs_say is not None]:
        # docs_say is only for disagreement or silence (on some verified release, at least);
        # a note says what the docs say instead
        assert claim.disagrees_with_docs, claim.id
        assert claim.note_en, claim.id
        assert claim.note_zh, claim.id


def test_explanations_are_bilingual() -> None:
    han = re.compile(r"[\u4e00-\u9fff]")
    for claim in CLAIMS:
        assert not han.search(claim.explanation_en), claim.id
        assert han.search(claim.explanation_zh), claim.id
        assert not han.search(claim.argument), claim.id
        # numbers and code quoted in one language appear in the other: they are the claim
        for quoted in re.findall(r"`([^`]+)`", claim.explanation_en):
            assert f"`{quoted}`" in claim.explanation_zh, (claim.id, quoted)


def test_docs_links_point_at_the_pinned_torch_documentation() -> None:
    pinned = pinned_torch()
    major_minor = ".".join(pinned.split(".")[:2])
    for claim in CLAIMS:
        assert claim.docs.startswith(f"https://docs.pytorch.org/docs/{major_minor}/"), claim.id


def pinned_torch() -> str:
    text = (ROOT / "conf" / "constraints.txt").read_text()
    match = re.search(r"^torch==([^\s;#]+)", text, flags=re.MULTILINE)
    assert match, "conf/constraints.txt pins torch"
    return match.group(1)


def minimal_row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "sdpa.attn_mask.bool",
        "api": "torch.nn.functional.scaled_dot_product_attention",
        "argument": {"en": "attn_mask", "zh": "attn_mask"},
        "expected": "allowed",
        "docs": "https://docs.pytorch.org/docs/2.13/x.html",
        "explanation": {"en": "True may attend.", "zh": "True 表示可以关注。"},
        "reproduce": ">>> 1\n1",
    }
    row.update(changes)
    return row


def test_a_minimal_row_parses() -> None:
    (claim,) = parse_claims({"claims": [minimal_row()]})
    assert isinstance(claim, Claim)
    assert (claim.framework, claim.docs_say, claim.requires) == ("torch", None, None)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"expected": "true"}, "is not one of"),
        ({"id": "Sdpa mask"}, "id must look like"),
        ({"docs_say": "maybe"}, "docs_say"),
        ({"docs_say": "forbidden"}, "a note must explain it"),
        ({"requires": "tpu"}, "requires must be one of"),
        ({"issues": [0]}, "issues must be"),
        ({"reproduce": "print(1)"}, "'>>> ' example"),
        ({"explanation": {"en": "only English"}}, "exactly the keys en and zh"),
        ({"docs": "http://example.com"}, "https:// link"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_malformed_rows_are_rejected_with_the_row_named(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ClaimsError, match=re.escape(message)) as caught:
        parse_claims({"claims": [minimal_row(**changes)]})
    assert "claim #1" in str(caught.value)


def test_duplicate_ids_are_rejected() -> None:
    with pytest.raises(ClaimsError, match="appears twice"):
        parse_claims({"claims": [minimal_row(), minimal_row()]})


def test_vocabulary_words_are_what_claims_use() -> None:
    used = {claim.expected for claim in CLAIMS}
    assert used <= set(VOCABULARY)


# --- the live check ----------------------------------------------------------------------------


@pytest.mark.parametrize("claim_id", [claim.id for claim in CLAIMS])
def test_row_holds_on_this_torch(claim_id: str) -> None:
    claim = BY_ID[claim_id]
    (result,) = run([claim])
    assert result.release == RELEASE
    if claim.requires == "cuda" and not CUDA:
        assert result.status == "not_verified"
        assert not result.ok
        assert result.observed is None
        pytest.skip(f"{claim_id}: {result.reason}")
    assert result.ok, (
        f"{claim_id} ({claim.api}, {claim.argument}): expected "
        f"{expected_for(claim, RELEASE)!r} on torch {RELEASE}, observed {result.observed!r}"
    )


def test_json_document_has_exactly_the_promised_shape(capsys: pytest.CaptureFixture[str]) -> None:
    status, document = run_json(capsys)
    assert status == 0
    assert set(document) == {"torch", "release", "rows"}
    assert document["torch"] == torch.__version__
    context = release_context()
    assert document["release"] == {
        "installed": context.installed,
        "compared_with": context.compared_with,
        "verified": list(context.verified),
        "note": context.note,
    }
    assert [row["id"] for row in document["rows"]] == [claim.id for claim in CLAIMS]
    for row in document["rows"]:
        claim = BY_ID[row["id"]]
        assert ROW_KEYS <= set(row) <= ROW_KEYS | OPTIONAL_ROW_KEYS, row
        assert row["api"] == claim.api
        assert row["argument"] == claim.argument
        assert row["expected"] == expected_for(claim, RELEASE)
        assert row["expected_for"] == RELEASE
        assert row["changed_in"] == [change.since for change in claim.changes]
        assert isinstance(row["ok"], bool)
        assert ("docs_say" in row) == (claim.docs_say is not None)
        if row["status"] == "not_verified":
            assert row["ok"] is False
            assert row["observed"] is None
            assert row["reason"]
        else:
            assert row["status"] == "ok"
            assert row["ok"] is True
            assert row["observed"] == expected_for(claim, RELEASE)
            assert "reason" not in row
    for claim_id in REQUIRED:
        (row,) = [r for r in document["rows"] if r["id"] == claim_id]
        assert row["ok"] is True, claim_id


def test_human_readable_table_names_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert f"torch {torch.__version__}" in out
    for claim in CLAIMS:
        assert claim.id in out
    if expected_for(BY_ID["sdpa.is_causal_with_attn_mask"], RELEASE) == "ok":
        assert "(docs say: error)" in out  # the release on which the kernels disagree
    assert "(changed in 2.3, 2.14)" in out


def test_rows_needing_cuda_are_not_verified_here_and_strict_counts_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if CUDA:
        pytest.skip("this machine has CUDA: those rows run")
    status, document = run_json(capsys, "--only", "sdpa.attn_mask.bool")
    rows = {row["id"]: row for row in document["rows"]}
    assert status == 0
    assert rows["sdpa.attn_mask.bool.cuda"]["status"] == "not_verified"
    assert rows["sdpa.attn_mask.bool.cuda"]["ok"] is False
    assert main(["--json", "--strict", "--only", "sdpa.attn_mask.bool"]) == 1


def test_only_selects_by_id_prefix_and_rejects_unknown_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, document = run_json(capsys, "--only", "bias")
    assert {row["id"] for row in document["rows"]} == {
        claim.id for claim in CLAIMS if claim.id.startswith("bias.")
    }
    capsys.readouterr()
    assert main(["--only", "sdpa.attn_mask.boo"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1  # one line, no traceback
    assert captured.err.startswith(
        "error: --only 'sdpa.attn_mask.boo' (did you mean sdpa.attn_mask.bool, "
    )
    assert captured.err.endswith(
        "no claim id is or starts with it; python -m attention.semantics lists every id\n"
    )


def test_an_empty_run_is_a_failure() -> None:
    assert exit_status([]) == 1


def test_a_probe_that_raises_fails_its_row_and_the_others_still_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("broken on purpose")

    monkeypatch.setattr(torch.nn.Transformer, "generate_square_subsequent_mask", broken)
    status, document = run_json(capsys)
    assert status == 1
    rows = {row["id"]: row for row in document["rows"]}
    bad = rows["transformer.generate_square_subsequent_mask"]
    assert bad["ok"] is False
    assert bad["status"] == "probe_error"
    assert bad["observed"] == "probe raised: ValueError: broken on purpose"
    assert failing(document) == {"transformer.generate_square_subsequent_mask"}


def test_human_readable_failure_names_the_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    flip.sdpa_bool_inverted(monkeypatch)
    assert main(["--only", "sdpa.attn_mask"]) == 1
    out = capsys.readouterr().out
    assert "FAIL sdpa.attn_mask.bool" in out
    assert (
        "FAILED sdpa.attn_mask.bool (torch.nn.functional.scaled_dot_product_attention, "
        f"attn_mask (torch.bool)): expected 'allowed' on torch {RELEASE}, observed 'forbidden'"
    ) in out


# --- every row can fail ---------------------------------------------------------------------

# (flip, the rows it must break, the rows it may break as well because they depend on the same
# behaviour).  Anything outside those sets failing would mean a probe reacts to the wrong thing.
FLIPS: list[tuple[flip.Flip, set[str], set[str]]] = [
    (
        flip.sdpa_bool_inverted,
        {"sdpa.attn_mask.bool", "sdpa.fully_masked_row", "bias.causal_lower_right.alignment"},
        {"sdpa.is_causal_with_attn_mask", "bias.causal_lower_right.fully_masked_row"},
    ),
    (
        flip.sdpa_float_as_bool,
        {"sdpa.attn_mask.float", "sdpa.fully_masked_row.additive"},
        # MHA hands SDPA additive masks on its need_weights=False path
        {
            "mha.attn_mask.bool",
            "mha.attn_mask.float",
            "mha.key_padding_mask.bool",
            "mha.key_padding_mask.float",
            "mha.fully_masked_row.need_weights_false",
            "mha.is_causal.key_padding_mask.need_weights_false",
            "transformer_encoder_layer.src_key_padding_mask.bool",
            # the encoder and decoder layers call MHA with need_weights=False
            "transformer.src_mask.bool",
            "transformer_decoder_layer.tgt_mask.bool",
            "transformer_decoder_layer.tgt_mask.float",
            "transformer_decoder_layer.memory_mask.bool",
            "transformer_decoder_layer.tgt_key_padding_mask.bool",
            "transformer_decoder_layer.memory_key_padding_mask.bool",
        },
    ),
    (
        flip.sdpa_causal_lower_right,
        {"sdpa.is_causal.alignment", "sdpa.is_causal.decode_step"},
        {"bias.causal_upper_left.alignment"},  # CausalBias upper-left dispatches to is_causal
    ),
    (
        flip.sdpa_causal_with_mask_everywhere,
        {"sdpa.is_causal_with_attn_mask.math"},
        {"sdpa.is_causal_with_attn_mask"},  # from 2.14 on that row expects an error too
    ),
    (flip.sdpa_causal_with_mask_rejected, {"sdpa.is_causal_with_attn_mask"}, set()),
    (
        flip.sdpa_plain_softmax,
        {
            "sdpa.fully_masked_row",
            "sdpa.fully_masked_row.additive",
            "sdpa.fully_masked_row.grad",
            "mha.fully_masked_row.need_weights_false",
            # the encoder's slow path hands SDPA a query whose keys are all padding
            "transformer_encoder.all_padding_item",
        },
        {"bias.causal_lower_right.fully_masked_row"},
    ),
    (
        flip.sdpa_hidden_keys_zeroed,
        {"sdpa.attn_mask.masked_nan", "sdpa.attn_mask.masked_nan.key"},
        set(),
    ),
    (flip.sdpa_mask_dtype_must_match, {"sdpa.attn_mask.float32.low_precision"}, set()),
    (flip.sdpa_gqa_any_head_counts, {"sdpa.enable_gqa.heads_not_dividing"}, set()),
    (flip.sdpa_heads_must_match, {"sdpa.one_kv_head.without_enable_gqa"}, set()),
    (flip.sdpa_dropout_follows_grad_mode, {"sdpa.dropout_p.without_training_flag"}, set()),
    (flip.sdpa_scale_one_over_d, {"sdpa.scale.default", "mha.scale.default"}, set()),
    (
        flip.mha_bool_as_allowed,
        {
            "mha.attn_mask.bool",
            "mha.key_padding_mask.bool",
            "mha.fully_masked_row.need_weights_true",
            "mha.fully_masked_row.need_weights_false",
            "mha.fully_masked_row.fast_path",
            "transformer_encoder_layer.src_key_padding_mask.bool",
            "transformer_encoder_layer.src_key_padding_mask.bool.fast_path",
            "transformer.src_mask.bool",
            "transformer_decoder_layer.tgt_mask.bool",
            "transformer_decoder_layer.memory_mask.bool",
            "transformer_decoder_layer.tgt_key_padding_mask.bool",
            "transformer_decoder_layer.memory_key_padding_mask.bool",
        },
        # these read their Boolean masks in MHA's convention to tell what they are about
        {
            "mha.is_causal.need_weights_true",
            "mha.is_causal.key_padding_mask.need_weights_false",
            "transformer_encoder.padded_positions.fast_path",
        },
    ),
    (
        flip.mha_float_as_bool,
        {
            "mha.attn_mask.float",
            "mha.key_padding_mask.float",
            "transformer_decoder_layer.tgt_mask.float",
        },
        set(),
    ),
    (flip.mha_mixed_dtypes_silent, {"mha.mixed_mask_dtypes"}, set()),
    (
        flip.safe_softmax,
        {"mha.fully_masked_row.need_weights_true", "softmax.all_neg_inf_row"},
        set(),
    ),
    (flip.fast_path_zeros, {"mha.fully_masked_row.fast_path"}, set()),
    (
        flip.mha_is_causal_builds_mask,
        {
            "mha.is_causal.without_attn_mask",
            "mha.is_causal.without_attn_mask.fast_path",
            "transformer_decoder_layer.tgt_is_causal.without_tgt_mask",
        },
        set(),
    ),
    (
        flip.mha_mask_beats_hint,
        {
            "mha.attn_mask.with_is_causal.need_weights_false",
            "transformer_decoder_layer.tgt_is_causal.with_tgt_mask",
        },
        set(),
    ),
    (flip.mha_hint_with_weights, {"mha.is_causal.need_weights_true"}, set()),
    (
        flip.mha_hint_always_applied,
        {"mha.is_causal.key_padding_mask.need_weights_false", "mha.is_causal.need_weights_true"},
        set(),
    ),
    (flip.mha_dropout_in_eval, {"mha.dropout.eval_mode"}, set()),
    (flip.encoder_zeroes_padding, {"transformer_encoder.padded_positions"}, set()),
    (
        flip.encoder_without_nested_tensor,
        {"transformer_encoder.padded_positions.fast_path"},
        set(),
    ),
    (flip.square_subsequent_mask_bool, {"transformer.generate_square_subsequent_mask"}, set()),
    (
        flip.lower_right_is_upper_left,
        {"bias.causal_lower_right.alignment", "bias.causal_lower_right.fully_masked_row"},
        set(),
    ),
    (flip.upper_left_is_lower_right, {"bias.causal_upper_left.alignment"}, set()),
    (
        flip.flex_mask_mod_inverted,
        {
            "flex_attention.mask_mod",
            "flex_attention.fully_masked_row",
            "flex_attention.block_mask.q_len_below_kv_len",
            "flex_attention.block_mask.broadcast",
            "flex_attention.mask_mod.partial_block",
        },
        set(),
    ),
    (flip.flex_block_mask_adjusted, {"flex_attention.block_mask.reuse"}, set()),
    (flip.flex_causal_lower_right, {"flex_attention.block_mask.q_len_below_kv_len"}, set()),
    (flip.flex_broadcast_first_item_only, {"flex_attention.block_mask.broadcast"}, set()),
    (flip.flex_mask_mod_past_lengths, {"flex_attention.mask_mod.partial_block"}, set()),
    (flip.nested_mask_accepted, {"sdpa_nested.attn_mask"}, set()),
    (flip.nested_causal_accepted, {"sdpa_nested.is_causal"}, set()),
    (flip.nested_padded_keys, {"sdpa_nested.no_mask"}, set()),
]


@pytest.mark.parametrize(
    ("install", "must_fail", "may_fail"), FLIPS, ids=[f.__name__ for f, _, _ in FLIPS]
)
def test_a_torch_that_behaves_differently_fails_the_matching_rows(
    install: flip.Flip,
    must_fail: set[str],
    may_fail: set[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the flips were written against torch 2.13.0: each imitates a torch that differs from a
    # row's expectation there (not from ``expected``, the oldest verified release's).  On a
    # release where that row's expectation is another (claims.changes), the real torch may
    # already behave as the flip does, so the flip proves nothing there
    changed = sorted(
        c for c in must_fail if expected_for(BY_ID[c], RELEASE) != expected_for(BY_ID[c], FLIPPED)
    )
    if changed:
        pytest.skip(
            f"{', '.join(changed)}: torch {RELEASE} expects otherwise than torch {FLIPPED}, "
            "which the flip was written against"
        )
    install(monkeypatch)
    status, document = run_json(capsys)
    assert status == 1
    rows = {row["id"]: row for row in document["rows"]}
    for claim_id in must_fail:
        assert rows[claim_id]["ok"] is False, (claim_id, rows[claim_id])
        assert rows[claim_id]["observed"] != rows[claim_id]["expected"]
    assert must_fail <= failing(document) <= must_fail | may_fail


def test_every_cpu_row_is_broken_by_some_flip() -> None:
    broken = set().union(*(must for _, must, _ in FLIPS))
    cpu_rows = {claim.id for claim in CLAIMS if claim.requires is None}
    assert cpu_rows - broken == set()


def test_a_probe_cannot_report_a_path_it_did_not_take(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # with the fast path switched off the module computes the same numbers on its slow path;
    # the fast-path rows must fail rather than report what the slow path did
    flip.mha_fast_path_off(monkeypatch)
    status, document = run_json(capsys, "--only", "mha", "--only", "transformer_encoder_layer")
    assert status == 1
    rows = {row["id"]: row for row in document["rows"]}
    for claim_id in (
        "mha.fully_masked_row.fast_path",
        "mha.attn_mask.bool",
        "mha.key_padding_mask.bool",
        "mha.scale.default",
    ):
        assert rows[claim_id]["status"] == "probe_error", claim_id
        assert "did not take the fast_path path" in rows[claim_id]["observed"]


# --- the verification record --------------------------------------------------------------------


def test_the_digest_changes_when_what_is_checked_changes() -> None:
    changed = [
        Claim(**{**vars(claim), "expected": "forbidden"})
        if claim.id == "sdpa.attn_mask.bool"
        else claim
        for claim in CLAIMS
    ]
    assert claims_digest(changed) != claims_digest(CLAIMS)
    reworded = [Claim(**{**vars(c), "explanation_en": c.explanation_en + " "}) for c in CLAIMS]
    assert claims_digest(reworded) == claims_digest(CLAIMS)


def test_a_failing_or_partial_run_is_not_recorded() -> None:
    results = run(CLAIMS)
    bad = [
        RowResult(r.claim, "mismatch", "forbidden") if r.claim.id == "sdpa.attn_mask.bool" else r
        for r in results
    ]
    with pytest.raises(ValueError, match="failing rows"):
        make_record(CLAIMS, bad, claims_file="semantics.toml")
    with pytest.raises(ValueError, match="every claim"):
        make_record(CLAIMS, results[:3], claims_file="semantics.toml")


def test_record_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "record.json"
    assert main(["--record", str(target)]) == 0
    record = load_record(target)
    assert record["claims_sha256"] == claims_digest(CLAIMS)
    assert record["torch"] == torch.__version__
    assert record["versions"] == {"torch": torch.__version__}
    assert record["claims"] == "semantics.toml"
    assert "wrote" in capsys.readouterr().err


def test_require_torch_refuses_another_release(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--require-torch", "1.0.0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"error: torch {torch.__version__} is installed, not the required 1.0.0\n"
    )
    assert main(["--require-torch", release_context().installed, "--only", "sdpa.scale"]) == 0


def test_a_newer_torch_is_compared_with_the_latest_verified_release(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    verified = release_context().verified
    monkeypatch.setattr(torch, "__version__", "99.0.0")
    _, document = run_json(capsys, "--only", "sdpa.is_causal_with_attn_mask")
    assert document["release"]["installed"] == "99.0.0"
    assert document["release"]["compared_with"] == verified[-1]
    assert "newer than every verified release" in document["release"]["note"]
    for row in document["rows"]:
        assert row["expected_for"] == verified[-1]
        assert row["expected"] == expected_for(BY_ID[row["id"]], verified[-1])
    capsys.readouterr()
    main(["--only", "sdpa.scale"])
    assert "note: torch 99.0.0 is newer than every verified release" in capsys.readouterr().out


def test_format_table_counts_rows() -> None:
    text = format_table(run(CLAIMS, only=["sdpa.scale"]))
    assert text.splitlines()[-1] == "1 rows: 1 ok, 0 failed, 0 not verified here"
