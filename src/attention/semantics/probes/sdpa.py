"""Probes for ``torch.nn.functional.scaled_dot_product_attention`` (SDPA), on the CPU kernels.

Every probe looks SDPA up at call time (``F.scaled_dot_product_attention``, not a saved
reference), so a test can swap in a torch that behaves differently and watch the row fail.  On a
CPU, SDPA has a math kernel and a fused flash-attention kernel; which one runs depends on the
inputs, so most rows are observed with the default choice and with each kernel forced in turn.

>>> sdpa_attn_mask_bool()
'allowed'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention.semantics.observe import (
    additive_reading,
    boolean_polarity,
    call_outcome,
    causal_alignment,
    describe,
    empty_row_outcome,
    same,
)
from attention.semantics.probes.inputs import (
    ADDITIVE_ROW,
    DTYPE,
    EMPTY_ROW_ALLOWED,
    PATTERN,
    Layout,
    agreed,
    read_weights,
    weight_inputs,
)
from attention.semantics.probes.kernels import (
    KernelUnavailableError,
    cpu_kernels,
    force,
    note_backend,
)
from attention.semantics.probes.releases import ABSENT
from attention.semantics.registry import probe

__all__ = [
    "sdpa_attn_mask_bool",
    "sdpa_attn_mask_bool_cuda",
    "sdpa_attn_mask_float",
    "sdpa_attn_mask_float32_low_precision",
    "sdpa_attn_mask_masked_nan",
    "sdpa_attn_mask_masked_nan_key",
    "sdpa_dropout_p_without_training_flag",
    "sdpa_enable_gqa_heads_not_dividing",
    "sdpa_fully_masked_row",
    "sdpa_fully_masked_row_additive",
    "sdpa_fully_masked_row_grad",
    "sdpa_is_causal_alignment",
    "sdpa_is_causal_alignment_cuda",
    "sdpa_is_causal_decode_step",
    "sdpa_is_causal_with_attn_mask",
    "sdpa_is_causal_with_attn_mask_math",
    "sdpa_one_kv_head_without_enable_gqa",
    "sdpa_scale_default",
    "sdpa_weights",
]


def sdpa_weights(
    length: int,
    source: int,
    *,
    device: str = "cpu",
    dtype: torch.dtype = DTYPE,
    heads_axis: bool = True,
    value_width: int | None = None,
    **kwargs: Any,
) -> Tensor:
    """Call ``F.scaled_dot_product_attention`` so that its output is the weight matrix [L, S].

    The inputs are 4-D ``[B, H, ., D]``, or 3-D ``[B, ., D]`` with ``heads_axis=False``, and the
    value head dimension ``Dv`` equals the query's ``D = 8`` unless ``value_width`` says otherwise:
    the rank and ``Dv != D`` can change which CPU kernel runs.
    """
    layout: Layout = "BHLD" if heads_axis else "BLD"
    query, key, value = weight_inputs(
        length, source, layout=layout, value_width=value_width, dtype=dtype, device=device
    )
    note_backend(query, key, value, **kwargs)  # which kernel a default-choice call runs on
    output = F.scaled_dot_product_attention(query, key, value, **kwargs)  # [.., L, Dv]
    return read_weights(output, layout, source)  # [L, S]


def _each_cpu_kernel(observe: Callable[[], str]) -> str:
    """``observe()`` with the default kernel choice, then with each CPU kernel forced in turn.

    On CPU, SDPA has a math kernel and, on the releases that have it, a fused flash-attention
    kernel (:func:`~attention.semantics.probes.kernels.cpu_kernels`); the default choice
    depends on the inputs.  Forcing one is the evidence of which one ran: a kernel that cannot
    take the call raises instead of handing it to another.
    """
    seen = {"default": observe()}
    for kernel in cpu_kernels():
        try:
            with force(kernel):
                seen[kernel] = observe()
        except KernelUnavailableError:
            continue  # this release's kernel takes no such inputs (torch 2.1, 2.2: no masks)
    return agreed(seen)


@probe("sdpa.attn_mask.bool")
def sdpa_attn_mask_bool() -> str:
    """What True means in SDPA's Boolean ``attn_mask``: which keys receive weight."""
    return _each_cpu_kernel(
        lambda: boolean_polarity(sdpa_weights(3, 3, attn_mask=PATTERN), PATTERN)
    )


@probe("sdpa.attn_mask.float")
def sdpa_attn_mask_float() -> str:
    """How SDPA reads a floating ``attn_mask`` [0, ln 3, -inf]: added to the scores, or not."""
    mask = ADDITIVE_ROW.expand(3, 3)  # [L, S]
    return _each_cpu_kernel(lambda: additive_reading(sdpa_weights(3, 3, attn_mask=mask), mask))


@probe("sdpa.is_causal.alignment")
def sdpa_is_causal_alignment() -> str:
    """Where ``is_causal=True`` puts the triangle when there are fewer queries than keys."""
    return _each_cpu_kernel(lambda: causal_alignment(sdpa_weights(2, 4, is_causal=True)))


def _causal_with_mask(*, heads_axis: bool = True, value_width: int | None = None) -> str:
    """``is_causal=True`` plus an ``attn_mask``: rejected, or which of the two was applied.

    The mask and the causal triangle differ, and so does their intersection, so the weights tell
    whether the call kept the mask, the triangle, or both.
    """
    allowed = torch.tensor([[True, True, False], [False, True, True], [True, False, True]])
    causal = torch.ones(3, 3, dtype=torch.bool).tril()
    weights: list[Tensor] = []
    outcome, _ = call_outcome(
        lambda: weights.append(
            sdpa_weights(
                3,
                3,
                attn_mask=allowed,
                is_causal=True,
                heads_axis=heads_axis,
                value_width=value_width,
            )
        )
    )
    if outcome == "error":
        return "error"
    receives = weights[0] > 0  # [L, S]
    if torch.equal(receives, allowed & causal):
        return "ok"  # accepted, and both masks applied
    if torch.equal(receives, allowed):
        return "unrecognised: accepted, is_causal ignored"
    if torch.equal(receives, causal):
        return "unrecognised: accepted, attn_mask ignored"
    return f"unrecognised: accepted, weights {describe(weights[0])}"


@probe("sdpa.is_causal_with_attn_mask")
def sdpa_is_causal_with_attn_mask() -> str:
    """``is_causal=True`` with an ``attn_mask``, 4-D inputs with ``Dv == D``: default and flash.

    Both must agree: the row says the default choice for these inputs is the flash kernel.  The
    value head dimension equals the query's (:func:`sdpa_weights`' default); with ``Dv != D`` the
    default choice is the math kernel, which the next row covers.
    """
    seen = {"default": _causal_with_mask()}
    if "flash_attention" in cpu_kernels():
        try:
            with force("flash_attention"):
                seen["flash_attention forced"] = _causal_with_mask()
        except KernelUnavailableError:
            pass  # torch 2.1, 2.2: the CPU flash kernel takes no attn_mask
    return agreed(seen)


@probe("sdpa.is_causal_with_attn_mask.math")
def sdpa_is_causal_with_attn_mask_math() -> str:
    """The same call on the math kernel: forced, or chosen for 3-D inputs or for ``Dv != D``.

    The 3-D inputs and the 4-D inputs whose value head dimension (12) differs from the query's
    (8) show the choice without forcing it: the default selection must send them to a kernel that
    rejects the combination.
    """
    with force("math"):
        forced = _causal_with_mask()
    return agreed(
        {
            "math forced": forced,
            "3-D inputs": _causal_with_mask(heads_axis=False),
            "4-D inputs, Dv != D": _causal_with_mask(value_width=12),
        }
    )


@probe("sdpa.fully_masked_row")
def sdpa_fully_masked_row() -> str:
    """Output of a query whose Boolean ``attn_mask`` row is all False, on each CPU kernel."""
    return _each_cpu_kernel(
        lambda: empty_row_outcome(sdpa_weights(3, 3, attn_mask=EMPTY_ROW_ALLOWED)[1])
    )


@probe("sdpa.fully_masked_row.additive")
def sdpa_fully_masked_row_additive() -> str:
    """Output of a query whose additive ``attn_mask`` row is all -inf, on each CPU kernel."""
    additive = torch.zeros(3, 3, dtype=DTYPE).masked_fill(~EMPTY_ROW_ALLOWED, float("-inf"))
    return _each_cpu_kernel(lambda: empty_row_outcome(sdpa_weights(3, 3, attn_mask=additive)[1]))


@probe("sdpa.dropout_p.without_training_flag")
def sdpa_dropout_p_without_training_flag() -> str:
    """Whether ``dropout_p`` still drops weights inside a module in eval mode, without autograd."""

    class Block(nn.Module):
        def forward(self) -> Tensor:
            # the functional call cannot see self.training: nothing passes it
            return sdpa_weights(1, 8, dropout_p=0.5)

    block = Block().eval()
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        weights = block()  # [L=1, S=8]
    uniform = torch.full_like(weights, 1 / 8)
    return "ignored" if same(weights, uniform) else "applied"


@probe("sdpa.scale.default")
def sdpa_scale_default() -> str:
    """The scale SDPA uses when ``scale=None``, from one query and two keys with D = 4."""
    return _each_cpu_kernel(_sdpa_scale)


def _sdpa_scale() -> str:
    query = torch.tensor([[[[2.0, 0.0, 0.0, 0.0]]]], dtype=DTYPE)  # [B, H, L=1, D=4]
    key = torch.tensor([[[[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]]], dtype=DTYPE)  # S=2
    value = torch.eye(2, 4, dtype=DTYPE)[None, None]  # one-hot, same width as the keys
    note_backend(query, key, value)
    weights = F.scaled_dot_product_attention(query, key, value)[0, 0, :, :2]  # [L=1, S=2]
    raw = torch.tensor([[0.0, 4.0]], dtype=DTYPE)  # q . k for the two keys
    for word, scale in (("1/sqrt(d_k)", 1 / math.sqrt(4)), ("1", 1.0), ("1/d_k", 1 / 4)):
        if same(weights, torch.softmax(raw * scale, dim=-1)):
            return word if word == "1/sqrt(d_k)" else f"unrecognised: scale {word}"
    return "unrecognised: scale matches none of 1/sqrt(d_k), 1, 1/d_k"


@probe("sdpa.attn_mask.bool.cuda")
def sdpa_attn_mask_bool_cuda() -> str:
    """SDPA's Boolean ``attn_mask`` on a CUDA device, float16, default kernel selection."""
    weights = sdpa_weights(3, 3, device="cuda", dtype=torch.float16, attn_mask=PATTERN.cuda())
    return boolean_polarity(weights, PATTERN)


@probe("sdpa.is_causal.alignment.cuda")
def sdpa_is_causal_alignment_cuda() -> str:
    """``is_causal=True`` with L < S on a CUDA device, float16, default kernel selection."""
    return causal_alignment(sdpa_weights(2, 4, device="cuda", dtype=torch.float16, is_causal=True))


@probe("sdpa.is_causal.decode_step")
def sdpa_is_causal_decode_step() -> str:
    """``is_causal=True`` on a decode step: one new query (L = 1) against S = 4 cached keys."""
    return _each_cpu_kernel(lambda: causal_alignment(sdpa_weights(1, 4, is_causal=True)))


@probe("sdpa.fully_masked_row.grad")
def sdpa_fully_masked_row_grad() -> str:
    """The gradient reaching the query of a row with no allowed key: zeros or NaN, per kernel."""

    def gradient_row() -> str:
        query, key, value = weight_inputs(3, 3, layout="BHLD")  # [B, H, ., D]
        for tensor in (query, key, value):
            tensor.requires_grad_(True)
        note_backend(query, key, value, attn_mask=EMPTY_ROW_ALLOWED)
        output = F.scaled_dot_product_attention(query, key, value, attn_mask=EMPTY_ROW_ALLOWED)
        output.sum().backward()  # type: ignore[no-untyped-call]
        grads = [t.grad for t in (query, key, value)]
        if any(grad is None for grad in grads):
            raise RuntimeError("backward gave no gradient to query, key or value")
        if any(bool(torch.isnan(grad).any()) for grad in grads if grad is not None):
            return "nan"  # a NaN anywhere: it spreads into every parameter update
        assert query.grad is not None
        return empty_row_outcome(query.grad[0, 0, 1])  # the masked query's gradient row

    return _each_cpu_kernel(gradient_row)


def _masked_nan(where: str) -> str:
    """Whether a NaN in key / value 2, which every query's mask hides, reaches the output."""

    def observe(mask: Tensor) -> str:
        query, key, value = weight_inputs(3, 3, layout="BHLD")  # [B, H, ., D]
        (key if where == "key" else value)[0, 0, 2] = float("nan")
        note_backend(query, key, value, attn_mask=mask)
        output = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
        return "leaks" if bool(torch.isnan(output).any()) else "contained"

    allowed = torch.tensor([[True, True, False]] * 3)  # [L, S]: key 2 hidden from every query
    additive = torch.zeros(3, 3, dtype=DTYPE).masked_fill(~allowed, float("-inf"))
    return agreed(
        {
            "Boolean mask": _each_cpu_kernel(lambda: observe(allowed)),
            "additive mask": _each_cpu_kernel(lambda: observe(additive)),
        }
    )


@probe("sdpa.attn_mask.masked_nan")
def sdpa_attn_mask_masked_nan() -> str:
    """Whether a NaN in a masked-out value (padding never written) reaches the output."""
    return _masked_nan("value")


@probe("sdpa.attn_mask.masked_nan.key")
def sdpa_attn_mask_masked_nan_key() -> str:
    """Whether a NaN in a masked-out key reaches the output."""
    return _masked_nan("key")


@probe("sdpa.attn_mask.float32.low_precision")
def sdpa_attn_mask_float32_low_precision() -> str:
    """A float32 additive mask with bfloat16 and float16 inputs: accepted or rejected."""
    mask = torch.zeros(3, 3, dtype=torch.float32)  # [L, S]

    def observe(dtype: torch.dtype) -> Callable[[], str]:
        return lambda: call_outcome(lambda: sdpa_weights(3, 3, dtype=dtype, attn_mask=mask))[0]

    return agreed(
        {
            str(dtype).removeprefix("torch."): _each_cpu_kernel(observe(dtype))
            for dtype in (torch.bfloat16, torch.float16)
        }
    )


def _gqa_call(query_heads: int, kv_heads: int, **kwargs: Any) -> Tensor:
    query = torch.zeros(1, query_heads, 2, 8, dtype=DTYPE)  # [B, Hq, L, D]
    key = torch.zeros(1, kv_heads, 2, 8, dtype=DTYPE)  # [B, Hkv, S, D]
    note_backend(query, key, key, **kwargs)
    return F.scaled_dot_product_attention(query, key, key, **kwargs)  # [B, Hq, L, D]


@probe("sdpa.enable_gqa.heads_not_dividing")
def sdpa_enable_gqa_heads_not_dividing() -> str:
    """``enable_gqa=True`` with 4 query heads and 3 key/value heads, which do not divide."""
    query = torch.zeros(1, 2, 2, 8, dtype=DTYPE)  # [B, H, L, D]
    try:  # a valid call: only a release without the argument fails
        F.scaled_dot_product_attention(query, query, query, enable_gqa=False)
    except TypeError:
        return ABSENT
    return _each_cpu_kernel(lambda: call_outcome(lambda: _gqa_call(4, 3, enable_gqa=True))[0])


@probe("sdpa.one_kv_head.without_enable_gqa")
def sdpa_one_kv_head_without_enable_gqa() -> str:
    """4 query heads and one key/value head, without ``enable_gqa``, the default kernel choice.

    Broadcasting the heads axis is only the math kernel's (the fused kernels take equal head
    counts), so the dispatcher's choice, recorded beside the row, is the math kernel.
    """
    return call_outcome(lambda: _gqa_call(4, 1))[0]
