"""The cross-framework rows against the real JAX, Flax, Keras and Transformers.

Runs in ``nox -s semantics_ecosystem``, which installs the pinned frameworks; elsewhere the whole
module is skipped (they are not installed).  Every row is checked live, its reproduce snippet runs
as a doctest, ``--json --all`` reports every required row ok, and each framework is flipped -- one
function wrapped to read masks the other way -- to show that the matching rows then fail.
"""

# ruff: noqa: E402 -- the frameworks are imported only after importorskip has found them

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

for _name in ("jax", "flax", "keras", "transformers"):
    pytest.importorskip(_name, reason=f"{_name} is not installed: run nox -s semantics_ecosystem")
os.environ.setdefault("KERAS_BACKEND", "jax")

import flax.linen
import jax
import keras
import torch
import transformers
from keras.src import ops as keras_ops

from attention.semantics.__main__ import main
from attention.semantics.claims import ecosystem_claims_path, load_ecosystem_claims
from attention.semantics.report import run
from tests import fake_frameworks as fake
from tests.test_semantics_ecosystem import (
    CUDA_ONLY,
    FLIPPED_SEPARATELY,
    NO_CPU_FLIP,
    REQUIRED,
    STANDIN_ROWS,
)
from tests.test_semantics_snippets import run_snippet

CLAIMS = load_ecosystem_claims()
BY_ID = {claim.id: claim for claim in CLAIMS}
CUDA = torch.cuda.is_available()


@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS])
def test_row_holds_on_the_installed_framework(claim_id: str) -> None:
    claim = BY_ID[claim_id]
    (result,) = run([claim])
    if claim.requires == "cuda" and not CUDA:
        assert result.status == "not_verified"
        pytest.skip(f"{claim_id}: {result.reason}")
    assert result.ok, (claim_id, result.status, result.observed)


@pytest.mark.parametrize("claim_id", [c.id for c in CLAIMS])
def test_reproduce_snippet_runs(claim_id: str) -> None:
    claim = BY_ID[claim_id]
    if claim.requires == "cuda" and not CUDA:
        pytest.skip(f"{claim_id} needs a CUDA device (and {claim.framework})")
    failures, report = run_snippet(claim, ecosystem_claims_path())
    assert failures == 0, report


def test_json_all_lists_every_required_row_ok(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--json", "--all"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["id"]: row for row in document["rows"]}
    for claim_id in REQUIRED:
        assert rows[claim_id]["ok"] is True, rows[claim_id]
    for claim_id in CUDA_ONLY:
        assert rows[claim_id]["ok"] is CUDA, rows[claim_id]
    assert not [row for row in document["rows"] if row["status"] == "skipped"]
    for name in ("jax", "jaxlib", "flax", "keras", "transformers"):
        assert document["versions"][name], name


# --- every row can fail: the real frameworks, one function wrapped ---------------------------


Change = Callable[[tuple[Any, ...], dict[str, Any]], None]


def _wrap(owner: object, name: str, change: Change) -> Callable[..., Any]:
    """``owner.name`` with its keyword arguments edited by ``change(args, kwargs)`` first."""
    real = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        change(args, kwargs)
        return real(*args, **kwargs)

    return wrapped


def _invert_mask(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    mask = kwargs.get("mask")
    if mask is not None and mask.dtype == bool:  # other dtypes go through as they came
        kwargs["mask"] = ~mask


def _causal_as_lower_right_mask(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``is_causal=True`` replaced by an explicit bottom-right triangle ([B, T, N, H] inputs)."""
    if kwargs.pop("is_causal", False):
        length, source = args[0].shape[1], args[1].shape[1]
        kwargs["is_causal"] = False
        kwargs["mask"] = fake._causal(length, source, "lower_right")[None, None]


def jax_mask_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = _wrap(jax.nn, "dot_product_attention", _invert_mask)
    monkeypatch.setattr(jax.nn, "dot_product_attention", wrapped)


def jax_causal_lower_right(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = _wrap(jax.nn, "dot_product_attention", _causal_as_lower_right_mask)
    monkeypatch.setattr(jax.nn, "dot_product_attention", wrapped)


def flax_mask_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = _wrap(flax.linen, "dot_product_attention", _invert_mask)
    monkeypatch.setattr(flax.linen, "dot_product_attention", wrapped)


def keras_fused_mask_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kwargs.get("mask") is not None:
            kwargs["mask"] = keras.ops.logical_not(kwargs["mask"])

    wrapped = _wrap(keras_ops, "dot_product_attention", change)
    monkeypatch.setattr(keras_ops, "dot_product_attention", wrapped)


def keras_fused_causal_lower_right(monkeypatch: pytest.MonkeyPatch) -> None:
    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        query, key = kwargs.get("query", args[0] if args else None), kwargs.get("key")
        if kwargs.pop("is_causal", False):
            kwargs["is_causal"] = False
            mask = fake._causal(query.shape[1], key.shape[1], "lower_right")
            kwargs["mask"] = mask[None, None]

    wrapped = _wrap(keras_ops, "dot_product_attention", change)
    monkeypatch.setattr(keras_ops, "dot_product_attention", wrapped)


def keras_fused_empty_row_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    real = keras_ops.dot_product_attention

    def zeros_for_empty_rows(*args: Any, **kwargs: Any) -> Any:
        output = real(*args, **kwargs)  # [B, T, N, H]
        mask = kwargs.get("mask")
        if mask is None:
            return output
        keep = keras.ops.any(mask, axis=-1)  # [B, N, T]: the query has a key
        keep = keras.ops.transpose(keep, (0, 2, 1))[..., None]  # [B, T, N, 1]
        return output * keras.ops.cast(keep, output.dtype)

    monkeypatch.setattr(keras_ops, "dot_product_attention", zeros_for_empty_rows)


def keras_scores_empty_row_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    # the layer's own masked softmax, without the step that zeroes a row with no allowed key
    softmax = keras.layers.Softmax
    real = softmax.call

    def call(self: Any, inputs: Any, mask: Any = None) -> Any:
        output = real(self, inputs, mask=mask)
        if mask is None:
            return output
        empty = keras.ops.logical_not(keras.ops.any(mask, axis=-1, keepdims=True))
        uniform = keras.ops.ones_like(output) / output.shape[-1]
        return keras.ops.where(empty, uniform, output)

    monkeypatch.setattr(softmax, "call", call)


def keras_causal_dropped_with_dropout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The regression of keras issue 23038: a layer with dropout applies no causal mask."""
    layer = keras.layers.MultiHeadAttention
    real = layer._compute_attention

    def compute(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._dropout > 0:
            kwargs["use_causal_mask"] = False
        return real(self, *args, **kwargs)

    monkeypatch.setattr(layer, "_compute_attention", compute)


def transformers_mask_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    model = transformers.BertModel
    real = model.forward

    def forward(self: Any, *args: Any, attention_mask: Any = None, **kwargs: Any) -> Any:
        if attention_mask is not None:
            attention_mask = 1 - attention_mask
        return real(self, *args, attention_mask=attention_mask, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


KERAS_ROWS = {
    "keras.MultiHeadAttention.attention_mask",
    "keras.MultiHeadAttention.use_causal_mask.alignment",
    "keras.MultiHeadAttention.fully_masked_row",
}

JAX_COMBINED = "jax.nn.dot_product_attention.seq_lengths.mask.is_causal"
"""The row whose mask and triangle both change under the JAX flips."""

LIVE_FLIPS: list[tuple[Callable[[pytest.MonkeyPatch], None], set[str], set[str]]] = [
    (
        jax_mask_inverted,
        {"jax.nn.dot_product_attention.mask.bool"},
        # keras' fused path on JAX runs jax.nn.dot_product_attention
        {"jax.nn.dot_product_attention.fully_masked_row", JAX_COMBINED} | KERAS_ROWS,
    ),
    (
        jax_causal_lower_right,
        {"jax.nn.dot_product_attention.is_causal.alignment"},
        {JAX_COMBINED} | KERAS_ROWS,
    ),
    (
        flax_mask_inverted,
        {"flax.linen.dot_product_attention.mask.bool"},
        {"flax.linen.dot_product_attention.fully_masked_row"},
    ),
    (keras_fused_mask_inverted, {"keras.MultiHeadAttention.attention_mask"}, set()),
    (
        keras_fused_causal_lower_right,
        {"keras.MultiHeadAttention.use_causal_mask.alignment"},
        set(),
    ),
    (keras_fused_empty_row_zeros, {"keras.MultiHeadAttention.fully_masked_row"}, set()),
    (
        keras_scores_empty_row_uniform,
        {"keras.MultiHeadAttention.fully_masked_row.return_attention_scores"},
        set(),
    ),
    (
        keras_causal_dropped_with_dropout,
        {"keras.MultiHeadAttention.use_causal_mask.dropout"},
        set(),
    ),
    (transformers_mask_inverted, {"transformers.attention_mask"}, set()),
]


@pytest.mark.parametrize(
    ("flip", "must_fail", "may_fail"), LIVE_FLIPS, ids=[f.__name__ for f, _, _ in LIVE_FLIPS]
)
def test_a_framework_that_behaves_differently_fails_the_matching_rows(
    flip: Callable[[pytest.MonkeyPatch], None],
    must_fail: set[str],
    may_fail: set[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    flip(monkeypatch)
    rows = [c for c in CLAIMS if c.id not in FLIPPED_SEPARATELY]  # those flip in their own module
    results = {r.claim.id: r for r in run(rows) if r.status != "not_verified"}
    failed = {claim_id for claim_id, r in results.items() if not r.ok}
    for claim_id in must_fail:
        # the expectation for the installed release (a row may state several, per release)
        assert results[claim_id].observed != results[claim_id].expected, claim_id
    assert must_fail <= failed <= must_fail | may_fail, failed


def test_every_row_is_broken_by_a_live_flip_or_a_standin() -> None:
    # the stand-ins (tests/test_semantics_ecosystem.py) cover the rows a CPU cannot run live
    broken = set().union(*(must for _, must, _ in LIVE_FLIPS))
    broken |= set().union(*(must for _, _, must, _ in fake.FLIPS))
    assert {c.id for c in CLAIMS} - broken - FLIPPED_SEPARATELY - NO_CPU_FLIP == set()
    assert set(STANDIN_ROWS) <= broken
