"""The cross-framework rows, without the frameworks: claims data, skipping, stand-ins, the record.

Runs in the default test session, where JAX, Flax, Keras and Transformers are not installed.  The
stand-ins of tests/fake_frameworks.py show that the JAX, Flax, flash-attn and xFormers probes read
a faithful library as the claims say and fail on one that differs; the Keras and Transformers
probes are flipped against the real libraries in tests/test_semantics_ecosystem_live.py
(``nox -s semantics_ecosystem``).  The record test is the guard that keeps the site honest: a
claim or a probe that changes without a fresh record fails in tests/test_semantics_records.py.
"""

from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from attention.semantics import paths, record
from attention.semantics.__main__ import main
from attention.semantics.claims import (
    Claim,
    ClaimsError,
    load_all_claims,
    load_claims,
    load_ecosystem_claims,
    parse_claims,
)
from attention.semantics.probes import (
    flash_attn_func,
    flax_linen,
    jax_nn,
    keras_mha,
    mlx_fast,
    onnx_attention,
    transformers_bert,
    transformers_llama,
    xformers_bias,
)
from attention.semantics.record import (
    claims_digest,
    load_record,
    make_record,
)
from attention.semantics.registry import FRAMEWORK_MODULES, probes_for
from attention.semantics.report import RowResult, exit_status, run
from tests import fake_frameworks as fake

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = load_ecosystem_claims()
BY_ID = {claim.id: claim for claim in CLAIMS}
FRAMEWORKS = sorted({claim.framework for claim in CLAIMS})
MODULES = {
    "jax": (jax_nn,),
    "flax": (flax_linen,),
    "keras": (keras_mha,),
    "transformers": (transformers_bert, transformers_llama),
    "flash_attn": (flash_attn_func,),
    "xformers": (xformers_bias,),
    # one module holds the probes of both ONNX runtimes
    "onnx": (onnx_attention,),
    "onnxruntime": (onnx_attention,),
    "mlx": (mlx_fast,),
}

REQUIRED = [
    "jax.nn.dot_product_attention.mask.bool",
    "jax.nn.dot_product_attention.bias",
    "jax.nn.dot_product_attention.is_causal.alignment",
    "jax.nn.dot_product_attention.fully_masked_row",
    "flax.linen.dot_product_attention.mask.bool",
    "flax.linen.dot_product_attention.fully_masked_row",
    "keras.MultiHeadAttention.attention_mask",
    "keras.MultiHeadAttention.use_causal_mask.alignment",
    "transformers.attention_mask",
    # the questions of public bug threads (issue 41): a decoder's custom 4-D mask per attention
    # implementation, left padding, a cache, packed documents; ONNX and MLX
    "transformers.llama.attention_mask.4d.bool.eager",
    "transformers.llama.attention_mask.4d.bool.sdpa",
    "transformers.llama.attention_mask.4d.float01.sdpa",
    "transformers.llama.fully_masked_row.sdpa",
    "transformers.llama.cache.causal.alignment",
    "transformers.llama.position_ids.packed",
    "transformers.llama.position_ids.packed.attention_mask_2d",
    "onnx.Attention.is_causal.alignment",
    "onnxruntime.Attention.is_causal.alignment",
    "onnxruntime.Attention.attn_mask.bool",
    "mlx.fast.scaled_dot_product_attention.mask.bool",
    "mlx.fast.scaled_dot_product_attention.mask.causal.alignment",
    "transformers.mistral.sliding_window",
    "transformers.llama.self_attn.is_causal.sdpa",
    "transformers.llama.self_attn.is_causal.sdpa.padding",
    # what create_causal_mask returns per implementation (cited by rule AM703), an encoder's
    # custom 4-D mask, causality turned off by argument or config, two images in one row
    "transformers.create_causal_mask.eager",
    "transformers.create_causal_mask.sdpa",
    "transformers.create_causal_mask.flex_attention",
    "transformers.create_bidirectional_mask.eager",
    "transformers.create_bidirectional_mask.sdpa",
    "transformers.bert.attention_mask.4d.float01.eager",
    "transformers.bert.attention_mask.4d.float01.sdpa",
    "transformers.llama.forward.is_causal.eager",
    "transformers.llama.forward.is_causal.sdpa",
    "transformers.llama.forward.is_causal.sdpa.padding",
    "transformers.llama.config.is_causal",
    "transformers.gemma3.token_type_ids.two_images",
]
"""Rows the cross-framework page must have, each verifiable on a CPU machine."""

CUDA_ONLY = [
    "flash_attn.flash_attn_func.causal.alignment",
    "flash_attn.flash_attn_func.window_size",
    "xformers.LowerTriangularFromBottomRightMask.alignment",
    "transformers.llama.attention_mask.4d.flash_attention_2",
]
"""Rows that need a CUDA device: listed with their source, never shown as verified here."""

NO_CPU_FLIP = frozenset({"transformers.llama.attention_mask.4d.flash_attention_2"})
"""CUDA rows with no CPU stand-in: transformers' flash-attn path runs only in conf/cuda_rows.py."""

DECODER_PREFIXES = ("transformers.llama.", "transformers.mistral.", "transformers.gemma3.")
FLIPPED_SEPARATELY = frozenset(
    claim.id
    for claim in CLAIMS
    if claim.id not in NO_CPU_FLIP
    and (
        claim.id.startswith((*DECODER_PREFIXES, "transformers.bert.", "transformers.create_"))
        or claim.framework in ("onnx", "onnxruntime", "mlx")
    )
)
"""Rows whose live flips are in tests/test_semantics_ecosystem_flips.py (decoders, BertModel's
custom 4-D mask, transformers' mask helpers, ONNX, MLX)."""

STANDIN_FRAMEWORKS = ("jax", "flax", "flash_attn", "xformers")

HELPERS = {"jax_weights", "flax_weights", "keras_weights", "tiny_bert", "flash_weights"}
HELPERS |= {"xformers_weights", "llama_weights", "tiny_llama", "mask_reading"}
HELPERS |= {"onnx_weights", "mlx_weights", "materialized_weights", "bert_weights"}
HELPERS |= {"mask_function_reading"}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    status = main(["--json", *argv])
    return status, json.loads(capsys.readouterr().out)


# --- the claims data -------------------------------------------------------------------------


def test_required_rows_are_claimed_and_cpu_verifiable() -> None:
    for claim_id in REQUIRED:
        assert claim_id in BY_ID, claim_id
        assert BY_ID[claim_id].requires is None, claim_id


def test_cuda_only_rows_name_their_source_and_are_not_cpu_verifiable() -> None:
    for claim_id in CUDA_ONLY:
        claim = BY_ID[claim_id]
        assert claim.requires == "cuda", claim_id
        assert claim.source_en, claim_id
        assert claim.source_zh, claim_id
        # a source names a file or page and the version it was read at
        assert re.search(r"\d+\.\d+", claim.source_en), claim_id


def test_transformers_row_states_the_integer_allowed_convention() -> None:
    claim = BY_ID["transformers.attention_mask"]
    assert claim.expected == "allowed"
    assert "integer 0 / 1" in claim.argument
    assert "1 marks a token the model may attend to and 0 a padding token" in claim.explanation_en


def test_every_row_names_a_known_framework_other_than_torch() -> None:
    for claim in CLAIMS:
        assert claim.framework in FRAMEWORK_MODULES, claim.id
        assert claim.framework != "torch", claim.id
        assert claim.id.split(".")[0] == claim.framework, claim.id


def test_ids_are_unique_across_both_files() -> None:
    ids = [claim.id for claim in load_all_claims()]
    assert len(ids) == len(set(ids))


def test_a_row_without_framework_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "eco.toml"
    path.write_text(
        '[[claims]]\nid = "jax.x"\napi = "jax.x"\nargument = {en = "a", zh = "甲"}\n'
        'expected = "allowed"\ndocs = "https://example.org"\n'
        'explanation = {en = "e", zh = "解释"}\nreproduce = ">>> 1\\n1"\n',
        encoding="utf-8",
    )
    with pytest.raises(ClaimsError, match="must name its framework"):
        load_ecosystem_claims(path)


def test_unverifiable_rows_must_cite_a_source() -> None:
    row = {
        "id": "flash_attn.x",
        "framework": "flash_attn",
        "api": "flash_attn.x",
        "argument": {"en": "a", "zh": "甲"},
        "expected": "lower_right",
        "docs": "https://example.org",
        "requires": "cuda",
        "explanation": {"en": "e", "zh": "解释"},
        "reproduce": ">>> 1\n1",
    }
    with pytest.raises(ClaimsError, match="must name its source"):
        parse_claims({"claims": [row]})
    with pytest.raises(ClaimsError, match="framework must be one of"):
        parse_claims({"claims": [{**row, "framework": "tensorflow"}]})


def test_explanations_are_bilingual_with_the_same_code() -> None:
    han = re.compile(r"[\u4e00-\u9fff]")
    for claim in CLAIMS:
        assert not han.search(claim.explanation_en + claim.argument), claim.id
        assert han.search(claim.explanation_zh), claim.id
        for quoted in re.findall(r"`([^`]+)`", claim.explanation_en):
            assert f"`{quoted}`" in claim.explanation_zh, (claim.id, quoted)
        if claim.note_en is not None:
            assert claim.docs_say is not None, claim.id


def test_docs_links_name_the_framework_documentation() -> None:
    hosts = {
        "jax": "https://docs.jax.dev/",
        "flax": "https://flax.readthedocs.io/",
        "keras": "https://keras.io/",
        "transformers": "https://huggingface.co/docs/transformers/v",
        "flash_attn": "https://github.com/Dao-AILab/flash-attention",
        "xformers": "https://facebookresearch.github.io/xformers/",
        "onnx": "https://onnx.ai/onnx/",
        "onnxruntime": "https://onnx.ai/onnx/",
        "mlx": "https://ml-explore.github.io/mlx/",
    }
    for claim in CLAIMS:
        assert claim.docs.startswith(hosts[claim.framework]), claim.id


def ecosystem_pins() -> dict[str, str]:
    return paths.pins(paths.CONSTRAINTS, paths.ECOSYSTEM_CONSTRAINTS)


def test_the_transformers_docs_link_is_the_pinned_release() -> None:
    pins = ecosystem_pins()
    assert f"/transformers/v{pins['transformers']}/" in BY_ID["transformers.attention_mask"].docs


# --- probes: registered one to one, importable without their frameworks ---------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_claims_and_probes_match_one_to_one(framework: str) -> None:
    assert set(probes_for(framework)) == {c.id for c in CLAIMS if c.framework == framework}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_public_probe_is_registered(framework: str) -> None:
    # a probe written but never filed under a claim would silently never run
    sharing = [other for other, modules in MODULES.items() if modules == MODULES[framework]]
    registered = {p for other in sharing for p in probes_for(other).values()}
    for module in MODULES[framework]:
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and name.islower() and name not in HELPERS:
                assert value in registered, (framework, name)


def test_the_default_run_imports_no_other_framework() -> None:
    code = (
        "import sys\n"
        "from attention.semantics.__main__ import main\n"
        "main(['--json', '--only', 'sdpa.scale'])\n"
        "print(sorted(m for m in ('jax', 'flax', 'keras', 'transformers') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


# --- skipped: a framework that is not installed ------------------------------------------------


def hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``names`` look not installed (an import of them raises), whatever this machine has."""
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def test_rows_of_missing_frameworks_are_skipped_not_failed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "jax", "flax", "keras", "transformers", "flash_attn", "xformers")
    hide(monkeypatch, "onnx", "onnxruntime", "mlx")
    status, document = run_json(capsys, "--all")
    assert status == 0
    assert set(document) == {"torch", "release", "versions", "rows"}
    rows = {row["id"]: row for row in document["rows"]}
    assert [row["id"] for row in document["rows"]] == [c.id for c in load_all_claims()]
    for claim in CLAIMS:
        row = rows[claim.id]
        assert row["ok"] is False
        assert row["observed"] is None
        if claim.requires == "cuda" and row["status"] == "not_verified":
            assert row["reason"] == "needs a CUDA device; this machine has none"
            continue
        assert row["status"] == "skipped", claim.id
        needed = "jax" if claim.framework in ("flax", "keras") else claim.framework
        assert row["reason"] in (
            f"{claim.framework} is not installed",
            f"{needed} is not installed",
        ), row
    # the torch rows still ran
    assert rows["sdpa.attn_mask.bool"]["ok"] is True


def test_skipped_rows_are_counted_in_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "jax")
    capsys.readouterr()
    assert main(["--all", "--only", "jax", "--only", "sdpa.scale"]) == 0
    out = capsys.readouterr().out
    assert "skip jax.nn.dot_product_attention.mask.bool" in out
    assert "skipped: jax is not installed" in out
    assert out.splitlines()[-1] == "13 rows: 1 ok, 0 failed, 0 not verified here, 12 skipped"


def test_skipped_rows_never_make_a_run_pass_or_fail_on_their_own() -> None:
    claim = BY_ID["jax.nn.dot_product_attention.mask.bool"]
    skipped = RowResult(claim, "skipped", None, "jax is not installed")
    assert not skipped.ok
    assert exit_status([skipped]) == 1  # nothing was checked
    failing = RowResult(claim, "mismatch", "forbidden")
    assert exit_status([skipped, failing]) == 1


def test_keras_rows_are_skipped_on_another_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    fake.install(monkeypatch, {"keras": fake._module("keras"), **fake.fake_jax()})
    monkeypatch.setenv("KERAS_BACKEND", "torch")
    (result,) = run(CLAIMS, only=["keras.MultiHeadAttention.attention_mask"])
    assert result.status == "skipped"
    assert "KERAS_BACKEND is 'torch'" in str(result.reason)


# --- the probes against stand-ins: they read a faithful library right, and can fail -------------


STANDIN_ROWS = [c.id for c in CLAIMS if c.framework in STANDIN_FRAMEWORKS]


def test_a_faithful_standin_passes_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    fake.FAITHFUL(monkeypatch)
    results = run(CLAIMS, only=STANDIN_ROWS)
    assert [(r.claim.id, r.status, r.observed) for r in results if not r.ok] == []
    assert len(results) == len(STANDIN_ROWS)


@pytest.mark.parametrize(
    ("name", "install", "must_fail", "may_fail"), fake.FLIPS, ids=[f[0] for f in fake.FLIPS]
)
def test_a_standin_that_behaves_differently_fails_the_matching_rows(
    name: str,
    install: fake.Installer,
    must_fail: set[str],
    may_fail: set[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake.FAITHFUL(monkeypatch)
    install(monkeypatch)
    results = {r.claim.id: r for r in run(CLAIMS, only=STANDIN_ROWS)}
    failed = {
        claim_id for claim_id, r in results.items() if r.status in ("mismatch", "probe_error")
    }
    for claim_id in must_fail:
        assert results[claim_id].observed != BY_ID[claim_id].expected, claim_id
    assert must_fail <= failed <= must_fail | may_fail, name


def test_every_standin_row_is_broken_by_some_flip() -> None:
    broken = set().union(*(must for _, _, must, _ in fake.FLIPS))
    assert set(STANDIN_ROWS) - broken == set()


def test_a_probe_error_names_the_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    modules = fake.fake_jax()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("broken on purpose")

    modules["jax.nn"].dot_product_attention = broken
    fake.install(monkeypatch, modules)
    (result,) = run(CLAIMS, only=["jax.nn.dot_product_attention.bias"])
    assert result.status == "probe_error"
    assert result.observed == "probe raised: RuntimeError: broken on purpose"


# --- the verification record ------------------------------------------------------------------


def test_the_digest_follows_what_is_checked_not_the_prose(monkeypatch: pytest.MonkeyPatch) -> None:
    digest = claims_digest(CLAIMS)
    changed = [
        Claim(**{**vars(c), "expected": "forbidden"}) if c.id == REQUIRED[0] else c for c in CLAIMS
    ]
    assert claims_digest(changed) != digest
    reworded = [Claim(**{**vars(c), "explanation_zh": c.explanation_zh + "。"}) for c in CLAIMS]
    assert claims_digest(reworded) == digest
    real = record._module_source
    monkeypatch.setattr(
        record,
        "_module_source",
        lambda name: real(name) + ("\n# edited" if name.endswith(".jax_nn") else ""),
    )
    assert claims_digest(CLAIMS) != digest


def test_a_partial_failing_or_skipping_run_is_not_recorded() -> None:
    ok = [RowResult(c, "ok" if c.requires is None else "not_verified", c.expected) for c in CLAIMS]
    name = "semantics-ecosystem.toml"
    made = make_record(CLAIMS, ok, claims_file=name, today=datetime.date(2026, 1, 2))
    assert made["date"] == "2026-01-02"
    assert set(made["versions"]) >= {"torch", "jax", "flax", "keras", "transformers"}
    with pytest.raises(ValueError, match="every claim"):
        make_record(CLAIMS, ok[:-1], claims_file=name)
    failing = [
        RowResult(r.claim, "mismatch", "forbidden") if i == 0 else r for i, r in enumerate(ok)
    ]
    with pytest.raises(ValueError, match="failing rows"):
        make_record(CLAIMS, failing, claims_file=name)
    skipped = [RowResult(r.claim, "skipped", None, "jax is not installed") for r in ok]
    with pytest.raises(ValueError, match="frameworks were skipped"):
        make_record(CLAIMS, skipped, claims_file=name)


def test_record_refuses_to_write_while_a_framework_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "transformers")
    target = tmp_path / "record.json"
    assert main(["--all", "--record", str(target)]) == 1
    assert not target.exists()
    assert "transformers is not installed" in capsys.readouterr().err


def test_the_torch_rows_keep_their_own_record() -> None:
    # the PyTorch record covers the PyTorch rows only, so installing JAX never invalidates it
    assert list(load_record()["rows"]) == [claim.id for claim in load_claims()]
