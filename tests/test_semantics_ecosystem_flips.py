"""The decoder, ONNX and MLX rows can fail: each library flipped live, one function wrapped.

Runs in ``nox -s semantics_ecosystem`` (which installs transformers, onnx, onnxruntime and
``mlx[cpu]`` at their pins); elsewhere the module is skipped.  Every flip makes the library behave
the other way a public bug thread describes (a Boolean mask read the other way, a float 0 / 1 mask
read as Boolean, an empty row turned into NaN, the cache or the packed-document detection
dropped, the causal flag ignored) and asserts that exactly the rows about that behaviour fail.
Only the rows of the flipped library run under each flip, to keep the session short.
"""

# ruff: noqa: E402 -- the frameworks are imported only after importorskip has found them

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

for _name in ("transformers", "onnx", "onnxruntime", "mlx"):
    pytest.importorskip(_name, reason=f"{_name} is not installed: run nox -s semantics_ecosystem")

import mlx.core as mx
import numpy as np
import onnx
import onnxruntime
import torch
import torch.nn.functional as F
import transformers
import transformers.masking_utils
from onnx.reference import ReferenceEvaluator
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
from transformers.models.llama import modeling_llama

from attention.semantics.claims import load_ecosystem_claims
from attention.semantics.report import run
from tests.test_semantics_ecosystem import FLIPPED_SEPARATELY

CLAIMS = load_ecosystem_claims()
BY_ID = {claim.id: claim for claim in CLAIMS}

FLIPPED_HERE = FLIPPED_SEPARATELY  # tests/test_semantics_ecosystem_live.py breaks the others

LLAMA = "transformers.llama."
FOUR_D = [
    f"{LLAMA}attention_mask.4d.{d}.{i}"
    for d in ("bool", "float01", "int01")
    for i in ("eager", "sdpa")
]
LLAMA_ROWS = {claim_id for claim_id in FLIPPED_HERE if claim_id.startswith(LLAMA)}
WINDOW = "transformers.mistral.sliding_window"
IMAGE_BLOCK = "transformers.gemma3.token_type_ids.image_block"
TWO_IMAGES = "transformers.gemma3.token_type_ids.two_images"
DECODER_ROWS = LLAMA_ROWS | {WINDOW, IMAGE_BLOCK, TWO_IMAGES}
FORWARD_IS_CAUSAL = {
    f"{LLAMA}forward.is_causal.{case}" for case in ("eager", "sdpa", "sdpa.padding")
}
CONFIG_IS_CAUSAL = f"{LLAMA}config.is_causal"
BERT_4D = {f"transformers.bert.attention_mask.4d.float01.{i}" for i in ("eager", "sdpa")}
CAUSAL_MASK = {f"transformers.create_causal_mask.{i}" for i in ("eager", "sdpa", "flex_attention")}
MASK_FUNCTIONS = CAUSAL_MASK | {
    f"transformers.create_bidirectional_mask.{i}" for i in ("eager", "sdpa")
}


def _zero_rows_to_nan(output: torch.Tensor) -> torch.Tensor:
    """Every all-zero row of the last axis (a query that attended to nothing) becomes NaN."""
    empty = (output == 0).all(dim=-1, keepdim=True)
    return output.masked_fill(empty, float("nan"))


# --- transformers (LlamaModel) -----------------------------------------------------------------


def _wrap_sdpa(monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], None]) -> None:
    real = F.scaled_dot_product_attention

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        edit(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(F, "scaled_dot_product_attention", wrapped)


def _binary_as_allowed(mask: Any) -> Any:
    """A 0 / 1 mask of any dtype read as Boolean *allowed* (what #46458 asked transformers to do)."""
    if mask is None or (
        mask.dtype.is_floating_point and not bool(((mask == 0) | (mask == 1)).all())
    ):
        return mask
    floor = torch.finfo(torch.float32).min
    return torch.where(mask != 0, 0.0, floor)


def _patch_eager(monkeypatch: pytest.MonkeyPatch, edit: Callable[[Any], Any]) -> None:
    """Llama's eager attention with its ``attention_mask`` (5th argument) edited first."""
    real = modeling_llama.eager_attention_forward

    def eager(
        module: Any, query: Any, key: Any, value: Any, attention_mask: Any, *args: Any, **kw: Any
    ) -> Any:
        return real(module, query, key, value, edit(attention_mask), *args, **kw)

    monkeypatch.setattr(modeling_llama, "eager_attention_forward", eager)


def llama_sdpa_bool_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    def edit(kwargs: dict[str, Any]) -> None:
        mask = kwargs.get("attn_mask")
        if mask is not None and mask.dtype == torch.bool:
            kwargs["attn_mask"] = ~mask

    _wrap_sdpa(monkeypatch, edit)


def llama_binary_masks_read_as_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    def eager_mask(mask: Any) -> Any:
        if mask is not None and (not mask.dtype.is_floating_point or bool(mask.max() > 0)):
            return _binary_as_allowed(mask)  # not additive, or holds a 1: a 0 / 1 mask
        return mask

    def edit(kwargs: dict[str, Any]) -> None:
        mask = kwargs.get("attn_mask")
        if mask is not None and mask.dtype != torch.bool and bool(mask.max() > 0):
            kwargs["attn_mask"] = _binary_as_allowed(mask)

    _patch_eager(monkeypatch, eager_mask)
    _wrap_sdpa(monkeypatch, edit)


def llama_empty_rows_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every implementation returns NaN for a query with no key, as CUDA runs were measured to."""
    for name in ("sdpa", "flex_attention"):
        real = ALL_ATTENTION_FUNCTIONS[name]

        def forward(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            output, weights = _real(*args, **kwargs)  # output [B, L, H, D]
            return _zero_rows_to_nan(output), weights

        monkeypatch.setitem(ALL_ATTENTION_FUNCTIONS._global_mapping, name, forward)

    def eager_mask(mask: Any) -> Any:
        if mask is not None and mask.dtype.is_floating_point:
            return mask.masked_fill(mask == torch.finfo(mask.dtype).min, float("-inf"))
        return mask

    _patch_eager(monkeypatch, eager_mask)


def llama_cache_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached keys are not attended to: the new queries see only themselves."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, cache: Any = None, **kwargs: Any) -> Any:
        cache = kwargs.pop("past_key_values", cache)  # the older name the probe passes
        fresh = None if cache is None else type(cache)(config=self.config)
        return real(self, *args, cache=fresh, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def llama_packed_detection_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transformers.masking_utils, "find_packed_sequence_indices", lambda _: None)


def llama_packed_detection_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Packed documents found with a cache or an all-ones mask too (transformers PR 46634's idea)."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        mask = kwargs.get("attention_mask")
        if kwargs.get("position_ids") is not None and kwargs.get("cache") is None:
            kwargs["use_cache"] = False
            if mask is not None and mask.ndim == 2 and bool(mask.all()):
                kwargs["attention_mask"] = None
        return real(self, *args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def llama_is_causal_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module's ``is_causal = False`` makes the model pass a bidirectional (padding-only) mask."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        mask = kwargs.get("attention_mask")
        if not all(layer.self_attn.is_causal for layer in self.layers) and mask is not None:
            floor = torch.finfo(torch.float32).min
            keep = mask[:, None, None, :].bool().expand(-1, 1, mask.shape[-1], -1)  # [B, 1, L, S]
            kwargs["attention_mask"] = torch.where(keep, 0.0, floor)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def llama_padding_queries_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A padding query attends to nothing: its row is masked too, not only its key."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        mask = kwargs.get("attention_mask")
        if mask is not None and mask.ndim == 2 and not bool(mask.all()):
            real_tokens = mask.bool()
            length = mask.shape[-1]
            causal = torch.ones(length, length, dtype=torch.bool).tril()
            keep = real_tokens[:, None, :, None] & real_tokens[:, None, None, :] & causal
            kwargs["attention_mask"] = torch.where(keep, 0.0, torch.finfo(torch.float32).min)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def gemma3_image_blocks_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """``token_type_ids`` make no block: image tokens stay causal like text."""
    from transformers.models.gemma3 import modeling_gemma3

    def no_blocks(token_type_ids: torch.Tensor, device: Any = None) -> torch.Tensor:
        return torch.full_like(token_type_ids, -1, device=device)

    monkeypatch.setattr(modeling_gemma3, "get_block_sequence_ids_for_mask", no_blocks)


def gemma3_images_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every image token in one block: the earlier image sees the later one (before PR 38080)."""
    from transformers.models.gemma3 import modeling_gemma3

    def one_block(token_type_ids: torch.Tensor, device: Any = None) -> torch.Tensor:
        return torch.where(token_type_ids == 1, 0, -1).to(device=device)

    monkeypatch.setattr(modeling_gemma3, "get_block_sequence_ids_for_mask", one_block)


def llama_is_causal_argument_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """``model(..., is_causal=False)`` loses the argument before the model sees it."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("is_causal", None)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def llama_config_is_causal_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A config's ``is_causal=False`` is read as True (a config without the field is left alone)."""
    model = modeling_llama.LlamaModel
    real = model.forward

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        if vars(self.config).get("is_causal") is not False:
            return real(self, *args, **kwargs)
        self.config.is_causal = True
        try:
            return real(self, *args, **kwargs)
        finally:
            self.config.is_causal = False

    monkeypatch.setattr(model, "forward", forward)


def bert_binary_4d_read_as_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """BertModel reads a 4-D 0 / 1 float mask as *allowed* (what #46458 asked for)."""
    model = transformers.BertModel
    real = model.forward

    def forward(self: Any, *args: Any, attention_mask: Any = None, **kwargs: Any) -> Any:
        if attention_mask is not None and attention_mask.ndim == 4:
            attention_mask = _binary_as_allowed(attention_mask)
        return real(self, *args, attention_mask=attention_mask, **kwargs)

    monkeypatch.setattr(model, "forward", forward)


def mask_functions_polarity_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mask functions return each mask with the other polarity (AM703's mistake)."""
    for name in ("create_causal_mask", "create_bidirectional_mask"):
        real = getattr(transformers.masking_utils, name)
        monkeypatch.setattr(transformers.masking_utils, name, _inverted(real))


def _inverted(real: Callable[..., Any]) -> Callable[..., Any]:
    def inverted(*args: Any, **kwargs: Any) -> Any:
        mask = real(*args, **kwargs)
        if isinstance(mask, torch.Tensor) and mask.dtype == torch.bool:
            return ~mask
        if isinstance(mask, torch.Tensor):  # additive: 0 where allowed -> 0 where forbidden
            return torch.where(mask == 0, torch.finfo(mask.dtype).min, 0.0).to(mask.dtype)
        if mask is not None:  # a BlockMask
            inner = mask.mask_mod
            mask.mask_mod = lambda *index: ~inner(*index)
        return mask

    return inverted


def llama_sdpa_is_causal_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDPA integration ignores the module's ``is_causal`` and always asks for causal."""
    real = ALL_ATTENTION_FUNCTIONS["sdpa"]

    def forward(*args: Any, **kwargs: Any) -> Any:
        return real(*args, **{**kwargs, "is_causal": True})

    monkeypatch.setitem(ALL_ATTENTION_FUNCTIONS._global_mapping, "sdpa", forward)


def mistral_window_one_key_wider(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sliding_window=W`` read as flash-attn reads ``window_size=(W, 0)``: W + 1 keys."""

    def overlay(sliding_window: int) -> Callable[..., Any]:
        def inner_mask(batch_idx: Any, head_idx: Any, q_idx: Any, kv_idx: Any) -> Any:
            return kv_idx >= q_idx - sliding_window

        return inner_mask

    monkeypatch.setattr(transformers.masking_utils, "sliding_window_overlay", overlay)


# --- ONNX: the reference evaluator and onnxruntime ---------------------------------------------


def _invert_bool_feed(feeds: dict[str, Any]) -> dict[str, Any]:
    mask = feeds.get("M")
    if mask is not None and mask.dtype == bool:
        return {**feeds, "M": ~mask}
    return feeds


def _without_causal(model: Any) -> Any:
    for node in model.graph.node:
        for attribute in node.attribute:
            if attribute.name == "is_causal":
                attribute.i = 0
    return model


def onnx_reference_bool_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ReferenceEvaluator.run
    monkeypatch.setattr(
        ReferenceEvaluator,
        "run",
        lambda self, names, feeds: real(self, names, _invert_bool_feed(feeds)),
    )


def onnx_reference_causal_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ReferenceEvaluator.__init__

    def init(self: Any, model: Any, *args: Any, **kwargs: Any) -> None:
        real(self, _without_causal(model), *args, **kwargs)

    monkeypatch.setattr(ReferenceEvaluator, "__init__", init)


def onnx_reference_empty_rows_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ReferenceEvaluator.run

    def run_(self: Any, names: Any, feeds: Any) -> Any:
        return [
            np.asarray(_zero_rows_to_nan(torch.from_numpy(out))) for out in real(self, names, feeds)
        ]

    monkeypatch.setattr(ReferenceEvaluator, "run", run_)


def ort_bool_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = onnxruntime.InferenceSession.run
    monkeypatch.setattr(
        onnxruntime.InferenceSession,
        "run",
        lambda self, names, feeds, *a, **k: real(self, names, _invert_bool_feed(feeds), *a, **k),
    )


def ort_causal_bottom_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU provider's alignment before onnxruntime PR 29050: is_causal as bottom-right."""
    real_init = onnxruntime.InferenceSession.__init__
    real_run = onnxruntime.InferenceSession.run

    def init(self: Any, model: bytes, *args: Any, **kwargs: Any) -> None:
        proto = onnx.load_from_string(model)
        self._flipped_causal = any(
            a.name == "is_causal" and a.i == 1 for n in proto.graph.node for a in n.attribute
        )
        real_init(self, _without_causal(proto).SerializeToString(), *args, **kwargs)

    def run_(self: Any, names: Any, feeds: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if getattr(self, "_flipped_causal", False) and "M" not in feeds:
            length, source = feeds["Q"].shape[-2], feeds["K"].shape[-2]
            keep = np.tril(np.ones((length, source), bool), k=source - length)
            value = feeds["V"] * 1.0
            weights = keep / keep.sum(-1, keepdims=True)  # the zero scores' softmax, bottom-right
            return [(weights @ value[0, 0])[None, None].astype(np.float32)]
        return real_run(self, names, feeds, *args, **kwargs)

    monkeypatch.setattr(onnxruntime.InferenceSession, "__init__", init)
    monkeypatch.setattr(onnxruntime.InferenceSession, "run", run_)


def ort_empty_rows_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    real = onnxruntime.InferenceSession.run

    def run_(self: Any, names: Any, feeds: Any, *args: Any, **kwargs: Any) -> Any:
        outputs = real(self, names, feeds, *args, **kwargs)
        return [np.asarray(_zero_rows_to_nan(torch.from_numpy(out))) for out in outputs]

    monkeypatch.setattr(onnxruntime.InferenceSession, "run", run_)


# --- MLX --------------------------------------------------------------------------------------


def _wrap_mlx(monkeypatch: pytest.MonkeyPatch, edit: Callable[[Any, Any, Any, Any], Any]) -> None:
    real = mx.fast.scaled_dot_product_attention

    def wrapped(q: Any, k: Any, v: Any, *, scale: float, mask: Any = None, **kwargs: Any) -> Any:
        return real(q, k, v, scale=scale, mask=edit(q, k, v, mask), **kwargs)

    monkeypatch.setattr(mx.fast, "scaled_dot_product_attention", wrapped)


def mlx_bool_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    def edit(q: Any, k: Any, v: Any, mask: Any) -> Any:
        if isinstance(mask, mx.array) and mask.dtype == mx.bool_:
            return mx.logical_not(mask)
        return mask

    _wrap_mlx(monkeypatch, edit)


def mlx_float_read_as_bool(monkeypatch: pytest.MonkeyPatch) -> None:
    def edit(q: Any, k: Any, v: Any, mask: Any) -> Any:
        if isinstance(mask, mx.array) and mask.dtype != mx.bool_:
            return mask != 0
        return mask

    _wrap_mlx(monkeypatch, edit)


def mlx_causal_upper_left(monkeypatch: pytest.MonkeyPatch) -> None:
    def edit(q: Any, k: Any, v: Any, mask: Any) -> Any:
        if isinstance(mask, str) and mask == "causal":
            return mx.array(np.tril(np.ones((q.shape[-2], k.shape[-2]), bool)))
        return mask

    _wrap_mlx(monkeypatch, edit)


def mlx_empty_rows_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    real = mx.fast.scaled_dot_product_attention

    def wrapped(q: Any, k: Any, v: Any, *, scale: float, mask: Any = None, **kwargs: Any) -> Any:
        output = real(q, k, v, scale=scale, mask=mask, **kwargs)
        if isinstance(mask, mx.array) and mask.dtype == mx.bool_:
            keep = mx.any(mask, axis=-1, keepdims=True)  # [.., L, 1]: the query has a key
            return output * keep.astype(output.dtype)
        return output

    monkeypatch.setattr(mx.fast, "scaled_dot_product_attention", wrapped)


Flip = Callable[[pytest.MonkeyPatch], None]

FLIPS: list[tuple[Flip, set[str], set[str]]] = [
    (
        llama_sdpa_bool_inverted,
        {f"{LLAMA}attention_mask.4d.bool.sdpa"},
        # the masks transformers builds for SDPA are Boolean too
        DECODER_ROWS,
    ),
    (
        llama_binary_masks_read_as_allowed,
        {row for row in FOUR_D if row != f"{LLAMA}attention_mask.4d.bool.sdpa"},
        set(),
    ),
    (
        llama_empty_rows_nan,
        {f"{LLAMA}fully_masked_row.{i}" for i in ("eager", "sdpa", "flex_attention")},
        set(),
    ),
    (llama_cache_dropped, {f"{LLAMA}cache.causal.alignment"}, set()),
    (llama_packed_detection_off, {f"{LLAMA}position_ids.packed"}, set()),
    (
        llama_packed_detection_always,
        {f"{LLAMA}position_ids.packed.use_cache", f"{LLAMA}position_ids.packed.attention_mask_2d"},
        set(),
    ),
    (
        llama_is_causal_honoured,
        {
            f"{LLAMA}self_attn.is_causal.{case}"
            for case in ("eager", "sdpa.padding", "flex_attention")
        },
        set(),
    ),
    (
        llama_sdpa_is_causal_forced,
        {f"{LLAMA}self_attn.is_causal.sdpa"},
        # the argument and the config field reach SDPA by the same flag
        {f"{LLAMA}forward.is_causal.sdpa", CONFIG_IS_CAUSAL},
    ),
    (
        llama_padding_queries_masked,
        {f"{LLAMA}padding.right"},
        # their padding query already has no key, or their padded batch stays causal
        {f"{LLAMA}fully_masked_row.{i}" for i in ("eager", "sdpa", "flex_attention")}
        | {f"{LLAMA}self_attn.is_causal.sdpa.padding"}
        # a custom 4-D mask is causal and wins over is_causal=False
        | {f"{LLAMA}forward.is_causal.sdpa.padding", CONFIG_IS_CAUSAL},
    ),
    (gemma3_image_blocks_ignored, {IMAGE_BLOCK, TWO_IMAGES}, set()),
    (gemma3_images_one_block, {TWO_IMAGES}, set()),
    (llama_is_causal_argument_dropped, FORWARD_IS_CAUSAL, set()),
    (llama_config_is_causal_ignored, {CONFIG_IS_CAUSAL}, set()),
    (bert_binary_4d_read_as_allowed, BERT_4D, set()),
    (
        mask_functions_polarity_inverted,
        MASK_FUNCTIONS,
        # the models reach create_bidirectional_mask through the module: a decoder whose
        # causality is off (with padding, or from its config) and Gemma 3's image blocks
        {f"{LLAMA}forward.is_causal.sdpa.padding", CONFIG_IS_CAUSAL, IMAGE_BLOCK, TWO_IMAGES},
    ),
    (mistral_window_one_key_wider, {WINDOW}, set()),
    (
        onnx_reference_bool_inverted,
        {"onnx.Attention.attn_mask.bool"},
        {"onnx.Attention.fully_masked_row"},
    ),
    (onnx_reference_causal_ignored, {"onnx.Attention.is_causal.alignment"}, set()),
    (onnx_reference_empty_rows_nan, {"onnx.Attention.fully_masked_row"}, set()),
    (
        ort_bool_inverted,
        {"onnxruntime.Attention.attn_mask.bool"},
        {"onnxruntime.Attention.fully_masked_row"},
    ),
    (
        ort_causal_bottom_right,
        {
            "onnxruntime.Attention.is_causal.alignment",
            # a single query: what the CPU provider did up to 1.27 (issue 29020)
            "onnxruntime.Attention.is_causal.alignment.single_query",
        },
        set(),
    ),
    (
        ort_empty_rows_nan,
        {
            "onnxruntime.Attention.fully_masked_row",
            "onnxruntime.Attention.fully_masked_row.additive",
        },
        set(),
    ),
    (
        mlx_bool_inverted,
        {"mlx.fast.scaled_dot_product_attention.mask.bool"},
        {"mlx.fast.scaled_dot_product_attention.fully_masked_row"},
    ),
    (mlx_float_read_as_bool, {"mlx.fast.scaled_dot_product_attention.mask.float"}, set()),
    (mlx_causal_upper_left, {"mlx.fast.scaled_dot_product_attention.mask.causal.alignment"}, set()),
    (mlx_empty_rows_zeros, {"mlx.fast.scaled_dot_product_attention.fully_masked_row"}, set()),
]


def _frameworks(rows: Iterable[str]) -> set[str]:
    return {BY_ID[row].framework for row in rows}


@pytest.mark.parametrize(
    ("flip", "must_fail", "may_fail"), FLIPS, ids=[f.__name__ for f, _, _ in FLIPS]
)
def test_a_flipped_library_fails_exactly_its_rows(
    flip: Flip, must_fail: set[str], may_fail: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flip(monkeypatch)
    frameworks = _frameworks(must_fail)
    rows = [c for c in CLAIMS if c.id in FLIPPED_HERE and c.framework in frameworks]
    if frameworks == {"transformers"}:  # the decoders' rows and the flip's own, not BertModel's
        rows = [c for c in rows if c.id in DECODER_ROWS | must_fail | may_fail]
    results = {r.claim.id: r for r in run(rows)}
    failed = {claim_id for claim_id, r in results.items() if not r.ok}
    for claim_id in must_fail:
        # the expectation for the installed release (a row may state several, per release)
        assert results[claim_id].observed != results[claim_id].expected, claim_id
    assert must_fail <= failed <= must_fail | may_fail, failed


def test_every_row_of_this_module_is_broken_by_a_flip() -> None:
    broken = set().union(*(must for _, must, _ in FLIPS))
    assert FLIPPED_HERE - broken == set()
