"""Tiled (online-softmax) attention equals dense attention and never builds the score matrix."""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from attention import (
    block_diagonal_allowed,
    causal_allowed,
    key_padding_allowed,
    scaled_dot_product_attention,
)
from attention.errors import (
    AttentionShapeError,
    MaskArgumentError,
    MaskDtypeError,
    NoAllowedKeyError,
    NonFiniteError,
)
from attention.tiled import tiled_attention
from tests.strategies import random_allowed


@st.composite
def tiled_problems(draw: st.DrawFn, dtype: torch.dtype) -> dict[str, Any]:
    leading = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    length, source = draw(st.integers(1, 9)), draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    query = torch.randn(*leading, length, d_k, generator=generator, dtype=dtype)
    key = torch.randn(*leading, source, d_k, generator=generator, dtype=dtype) * 2
    value = torch.randn(*leading, source, d_v, generator=generator, dtype=dtype)
    layout = draw(
        st.sampled_from(["none", "causal", "lower_right", "random", "padding", "block_diagonal"])
    )
    allowed = None
    if layout == "causal" and length <= source:
        allowed = causal_allowed(length, source)  # [L, S], every row keeps key 0
    elif layout == "lower_right" and length <= source:
        allowed = causal_allowed(length, source, alignment="lower_right")
    elif layout == "random":
        allowed = random_allowed(generator, (*leading, length, source), 0.4)
    elif layout == "padding" and leading:
        lengths = torch.randint(1, source + 1, (leading[0],), generator=generator)
        pad = key_padding_allowed(lengths, source)  # [B, 1, S]
        allowed = pad.reshape(leading[0], *([1] * (len(leading) - 1)), 1, source)
    elif layout == "block_diagonal" and length == source:
        cuts = sorted(draw(st.sets(st.integers(1, source - 1), max_size=3))) if source > 1 else []
        segments = [b - a for a, b in zip([0, *cuts], [*cuts, source], strict=True)]
        allowed = block_diagonal_allowed(segments)  # [T, T], packed sequences
    block_size = draw(st.integers(1, source + 3))
    return {"query": query, "key": key, "value": value, "allowed": allowed, "block": block_size}


def _dense(p: dict[str, Any]) -> torch.Tensor:
    q, k, v, allowed = p["query"], p["key"], p["value"], p["allowed"]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)


@settings(max_examples=400)
@given(tiled_problems(torch.float64))
def test_tiled_equals_torch_and_dense_in_float64(p: dict[str, Any]) -> None:
    tiled = tiled_attention(p["query"], p["key"], p["value"], p["allowed"], block_size=p["block"])
    torch.testing.assert_close(tiled, _dense(p), rtol=1e-12, atol=1e-12)
    q, k, v = (x.reshape(-1, *x.shape[-2:]) for x in (p["query"], p["key"], p["value"]))
    allowed = p["allowed"]
    if allowed is not None:
        allowed = allowed.expand(*p["query"].shape[:-1], k.shape[-2]).reshape(
            -1, *q.shape[-2:-1], k.shape[-2]
        )
    dense, _ = scaled_dot_product_attention(q, k, v, allowed)
    torch.testing.assert_close(tiled.reshape(dense.shape), dense, rtol=1e-12, atol=1e-12)


@settings(max_examples=200)
@given(tiled_problems(torch.float32))
def test_tiled_equals_torch_in_float32(p: dict[str, Any]) -> None:
    tiled = tiled_attention(p["query"], p["key"], p["value"], p["allowed"], block_size=p["block"])
    torch.testing.assert_close(tiled, _dense(p), rtol=1e-5, atol=1e-5)


class _LargestMatrix(TorchDispatchMode):
    """Record the largest trailing-two-dimensions size of every tensor an op produces."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for tensor in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(tensor, torch.Tensor) and tensor.ndim >= 2 and tensor.is_floating_point():
                self.largest = max(self.largest, tensor.shape[-2] * tensor.shape[-1])
        return out


@pytest.mark.parametrize("masked", [False, True])
def test_no_score_matrix_is_materialised_forward_or_backward(masked: bool) -> None:
    length = source = 256
    q, k, v = (torch.randn(2, length, 8, requires_grad=True) for _ in range(3))
    d_out = torch.randn(2, length, 8)
    allowed = causal_allowed(length) if masked else None
    with _LargestMatrix() as forward:
        out = tiled_attention(q, k, v, allowed, block_size=32)
    with _LargestMatrix() as backward:
        out.backward(d_out)
    assert all(x.grad is not None for x in (q, k, v))
    # nothing larger than the inputs themselves ([L, D] = 256 · 8), let alone [L, S]: one
    # [32, 32] tile of scores at a time, and the backward recomputes tiles instead of keeping them
    assert forward.largest <= length * 8
    assert backward.largest <= length * 8
    with _LargestMatrix() as dense_forward:
        dense, _ = scaled_dot_product_attention(q, k, v, allowed)
    with _LargestMatrix() as dense_backward:
        dense.backward(d_out)
    # the probe does see a score matrix when one exists, in either pass
    assert dense_forward.largest == dense_backward.largest == length * source


def test_causal_skips_blocks_no_query_may_see() -> None:
    calls: list[tuple[int, ...]] = []

    class _Matmuls(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            out = func(*args, **(kwargs or {}))
            if "mm" in func.__name__ and out.shape[-1] == 4:  # a [.., queries, 4 keys] tile
                calls.append(tuple(out.shape))
            return out

    q, k, v = (torch.randn(1, 8, 2) for _ in range(3))
    # upper-left causal, 3 queries over 8 keys: they see keys 0..2 only, so of the two key
    # blocks (0..3 and 4..7) the second is skipped: one score product instead of two
    with _Matmuls():
        tiled_attention(q[:, :3], k, v, causal_allowed(3, 8), block_size=4)
    assert len(calls) == 1
    calls.clear()
    with _Matmuls():
        tiled_attention(q[:, :3], k, v, causal_allowed(3, 8, alignment="lower_right"), block_size=4)
    assert len(calls) == 2


def test_errors_match_the_dense_function() -> None:
    q, k, v = torch.zeros(2, 3, 4), torch.zeros(2, 5, 4), torch.zeros(2, 5, 2)
    with pytest.raises(MaskArgumentError, match=r"block_size must be an int >= 1, got 0"):
        tiled_attention(q, k, v, block_size=0)
    with pytest.raises(AttentionShapeError, match=r"query must have at least 2 dimensions"):
        tiled_attention(torch.zeros(4), k, v)
    with pytest.raises(AttentionShapeError, match=r"share the key dimension D"):
        tiled_attention(q, torch.zeros(2, 5, 3), v)
    with pytest.raises(MaskDtypeError, match=r"allowed must be a torch.bool tensor"):
        tiled_attention(q, k, v, torch.ones(3, 5))
    with pytest.raises(AttentionShapeError, match=r"does not broadcast to \[\.\.\., L, S\]"):
        tiled_attention(q, k, v, torch.ones(4, 5, dtype=torch.bool))
    bad = q.clone()
    bad[0, 0, 0] = float("nan")
    with pytest.raises(NonFiniteError, match=r"query holds NaN"):
        tiled_attention(bad, k, v)
    allowed = torch.ones(3, 5, dtype=torch.bool)
    allowed[1] = False
    with pytest.raises(NoAllowedKeyError, match=r"query row \(batch 0, position 1\)"):
        tiled_attention(q, k, v, allowed, block_size=2)


def test_half_precision_scores_beyond_float16_range_are_right_not_an_error() -> None:
    # q·k = 4 · 300² = 360,000 > 65,504 (float16's largest): computed in float32, as torch does.
    q = torch.full((1, 2, 4), 300.0, dtype=torch.float16)
    k = torch.full((1, 3, 4), 300.0, dtype=torch.float16)
    k[0, 1] = 290.0
    v = torch.tensor([[[1.0], [2.0], [4.0]]], dtype=torch.float16)
    tiled = tiled_attention(q, k, v, block_size=2)
    want = F.scaled_dot_product_attention(q, k, v)
    assert bool(torch.isfinite(tiled).all())
    torch.testing.assert_close(tiled, want)
    wide = F.scaled_dot_product_attention(q.double(), k.double(), v.double())
    torch.testing.assert_close(tiled.double(), wide, rtol=0, atol=2e-3)


def test_overflowing_scores_are_reported_as_overflow_not_as_masked() -> None:
    q = torch.full((1, 2, 4), 1e20)
    k = torch.full((1, 3, 4), 1e20)
    v = torch.zeros(1, 3, 1)
    with pytest.raises(
        NonFiniteError, match=r"scores Q·Kᵀ·scale overflowed to ±inf in torch.float32"
    ):
        tiled_attention(q, k, v)


@pytest.mark.parametrize(
    ("dtype", "scale", "compute"),
    [(torch.float32, 1e39, "torch.float32"), (torch.float16, 1e39, "torch.float32")],
)
def test_a_scale_infinite_in_the_compute_dtype_is_reported_as_such(
    dtype: torch.dtype, scale: float, compute: str
) -> None:
    q, k, v = (torch.ones(1, 2, 4, dtype=dtype) for _ in range(3))
    with pytest.raises(NonFiniteError, match=rf"scale = 1e\+39 overflows to inf in {compute}"):
        tiled_attention(q, k, v, scale=scale)


def test_a_scale_beyond_float16_is_fine_for_float16_inputs() -> None:
    # The scores are computed in float32, so a scale above 65,504 is representable there.
    q, k, v = (torch.full((1, 2, 4), 0.001, dtype=torch.float16) for _ in range(3))
    want = F.scaled_dot_product_attention(q, k, v, scale=1e5)
    torch.testing.assert_close(tiled_attention(q, k, v, scale=1e5), want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "scores",
    [
        [-400.0, -380.0, 300.0, 310.0, -1000.0, 305.0],  # far below the start, then far above
        [-120.0, -119.0, -118.0, -117.5, -150.0, -116.0],  # every score far below 0
        [0.0, 1.0, 90.0, 95.0, 200.0, 0.5],  # each block's maximum far above the last one
    ],
)
def test_blocks_whose_scores_lie_far_from_the_running_reference(
    scores: list[float], dtype: torch.dtype
) -> None:
    # One query with D = 1 and scale 1: the scores are the keys themselves, visited two at a
    # time, so the reference moves by hundreds between blocks; 2^(score - reference) must neither
    # underflow every weight of a row (a first key far below 0) nor overflow (a jump far above).
    query = torch.ones(1, 1, dtype=dtype)  # [L=1, D=1]
    key = torch.tensor(scores, dtype=dtype)[:, None]  # [S=6, 1]
    value = torch.arange(6, dtype=dtype)[:, None]  # [S=6, Dv=1]
    tiled = tiled_attention(query, key, value, block_size=2, scale=1.0)
    expected = torch.softmax(key.double().T, dim=-1) @ value.double()  # [1, 1]
    torch.testing.assert_close(tiled.double(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("block_size", [0, -3, 2.0, True, "8", None])
def test_block_size_must_be_a_positive_int(block_size: Any) -> None:
    q = torch.zeros(1, 3, 4)
    with pytest.raises(MaskArgumentError, match=r"block_size must be an int >= 1, got"):
        tiled_attention(q, q, q, block_size=block_size)


def test_double_backward_is_a_clear_error() -> None:
    q = torch.randn(1, 3, 2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"tiled_attention has no second derivative"):
        torch.autograd.grad(tiled_attention(q, q, q).sum(), q, create_graph=True)


def test_half_precision_accumulates_in_float32() -> None:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 64, 16, generator=generator) for _ in range(3))
    reference = F.scaled_dot_product_attention(q, k, v)
    tiled = tiled_attention(q.half(), k.half(), v.half(), block_size=16)
    assert tiled.dtype == torch.float16
    torch.testing.assert_close(tiled.float(), reference, rtol=0, atol=5e-3)


def _grads(output: torch.Tensor, inputs: tuple[torch.Tensor, ...], grad: torch.Tensor) -> Any:
    return torch.autograd.grad(output, inputs, grad)


@settings(max_examples=300)
@given(tiled_problems(torch.float64))
def test_tiled_gradients_equal_torch_and_dense_in_float64(p: dict[str, Any]) -> None:
    q, k, v = (p[name].clone().requires_grad_(True) for name in ("query", "key", "value"))
    allowed = p["allowed"]
    d_out = torch.randn_like(p["query"][..., :1].expand(*q.shape[:-1], v.shape[-1]))
    tiled = _grads(tiled_attention(q, k, v, allowed, block_size=p["block"]), (q, k, v), d_out)
    torch_sdpa = _grads(
        F.scaled_dot_product_attention(q, k, v, attn_mask=allowed), (q, k, v), d_out
    )
    for got, want in zip(tiled, torch_sdpa, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)
    # The dense reference takes [B, L, D]: fold the leading dimensions into one batch axis.
    q3, k3, v3 = (x.reshape(-1, *x.shape[-2:]) for x in (q, k, v))
    if allowed is not None:
        allowed = allowed.expand(*q.shape[:-1], k.shape[-2]).reshape(-1, q.shape[-2], k.shape[-2])
    dense, _ = scaled_dot_product_attention(q3, k3, v3, allowed)
    reference = _grads(dense, (q, k, v), d_out.reshape(dense.shape))
    for got, want in zip(tiled, reference, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(
    ("allowed", "block_size"),
    [
        (None, 2),
        (causal_allowed(5, 7, alignment="lower_right"), 3),
        (key_padding_allowed([7, 2], 7)[:, None], 4),  # [B, 1, 1, S] over [B, H, L, S]
    ],
    ids=["no mask", "causal lower-right", "padding"],
)
def test_gradcheck_in_float64(allowed: torch.Tensor | None, block_size: int) -> None:
    generator = torch.Generator().manual_seed(1)
    shapes = ((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 3))
    q, k, v = (
        torch.randn(shape, generator=generator, dtype=torch.float64).requires_grad_(True)
        for shape in shapes
    )

    def call(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return tiled_attention(q, k, v, allowed, block_size=block_size, scale=0.7)

    assert torch.autograd.gradcheck(call, (q, k, v))


def test_half_precision_gradients_are_computed_in_float32() -> None:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 40, 8, generator=generator) for _ in range(3))
    wide = [x.clone().requires_grad_(True) for x in (q, k, v)]
    half = [x.half().requires_grad_(True) for x in (q, k, v)]
    d_out = torch.randn(1, 2, 40, 8, generator=generator)
    want = _grads(F.scaled_dot_product_attention(*wide, is_causal=True), tuple(wide), d_out)
    out = tiled_attention(*half, causal_allowed(40), block_size=16)
    got = _grads(out, tuple(half), d_out.half())
    for g, w in zip(got, want, strict=True):
        assert g.dtype == torch.float16
        torch.testing.assert_close(g.float(), w, rtol=0, atol=1e-2)


@pytest.mark.parametrize("mask", ["none", "causal [L, S]", "full [..., L, S]"])
@pytest.mark.parametrize(
    ("q_shape", "k_shape", "v_shape"),
    [
        ((2, 0, 4), (2, 5, 4), (2, 5, 3)),  # no query: L = 0
        ((0, 5, 4), (0, 6, 4), (0, 6, 3)),  # no batch: B = 0
        ((2, 5, 4), (2, 6, 4), (2, 6, 0)),  # values without features: Dv = 0
        ((2, 3, 0, 4), (2, 3, 6, 4), (2, 3, 6, 3)),  # L = 0 under batch and heads
        ((2, 0, 5, 4), (2, 0, 6, 4), (2, 0, 6, 3)),  # no heads
    ],
    ids=["L=0", "B=0", "Dv=0", "B,H,L=0", "H=0"],
)
def test_empty_inputs_give_empty_outputs_and_gradients_like_torch(
    q_shape: tuple[int, ...], k_shape: tuple[int, ...], v_shape: tuple[int, ...], mask: str
) -> None:
    q, k, v = (torch.randn(s, requires_grad=True) for s in (q_shape, k_shape, v_shape))
    allowed = None
    if mask != "none":
        allowed = causal_allowed(q_shape[-2], k_shape[-2], alignment="lower_right")
        if mask == "full [..., L, S]":  # as many (possibly zero) mask rows as query rows
            allowed = allowed.expand(*q_shape[:-1], k_shape[-2]).contiguous()
    out = tiled_attention(q, k, v, allowed, block_size=2)
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert out.shape == want.shape
    d_out = torch.randn(want.shape)
    got, expected = _grads(out, (q, k, v), d_out), _grads(want, (q, k, v), d_out)
    for grad, reference in zip(got, expected, strict=True):
        assert grad.shape == reference.shape
        torch.testing.assert_close(grad, reference)
    if q.ndim == 3:  # the dense function takes [B, L, D] only
        dense, _ = scaled_dot_product_attention(q, k, v, allowed)
        assert dense.shape == out.shape


@pytest.mark.parametrize("length", [0, 3])
def test_no_key_is_the_dense_functions_error_even_without_queries(length: int) -> None:
    q, k, v = torch.zeros(2, length, 4), torch.zeros(2, 0, 4), torch.zeros(2, 0, 3)
    with pytest.raises(AttentionShapeError, match=r"source length S must be positive") as dense:
        scaled_dot_product_attention(q, k, v)
    with pytest.raises(AttentionShapeError, match=r"source length S must be positive") as tiled:
        tiled_attention(q, k, v, block_size=2)
    assert str(tiled.value) == str(dense.value)
