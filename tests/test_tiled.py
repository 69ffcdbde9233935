"""Tiled (online-softmax) attention equals dense attention and never builds the score matrix."""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from attention import causal_allowed, key_padding_allowed, scaled_dot_product_attention
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
    layout = draw(st.sampled_from(["none", "causal", "lower_right", "random", "padding"]))
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
def test_no_score_matrix_is_materialised(masked: bool) -> None:
    length = source = 256
    q, k, v = (torch.randn(2, length, 8) for _ in range(3))
    allowed = causal_allowed(length) if masked else None
    with _LargestMatrix() as probe:
        tiled_attention(q, k, v, allowed, block_size=32)
    assert probe.largest <= length * 32  # one [L, block] block, never [L, S]
    with _LargestMatrix() as dense_probe:
        scaled_dot_product_attention(q, k, v, allowed)
    assert dense_probe.largest == length * source  # the probe does see a score matrix


def test_causal_skips_blocks_no_query_may_see() -> None:
    calls: list[tuple[int, ...]] = []

    class _Matmuls(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            out = func(*args, **(kwargs or {}))
            if func.__name__.startswith(("bmm", "mm")) and args[1].shape[-1] == 4:
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


def test_overflow_is_reported_not_returned_as_nan() -> None:
    q = torch.full((1, 2, 4), 300.0, dtype=torch.float16)
    k = torch.full((1, 3, 4), 300.0, dtype=torch.float16)
    v = torch.zeros(1, 3, 1, dtype=torch.float16)
    with pytest.raises(NonFiniteError, match=r"overflowed to ±inf in torch.float16"):
        tiled_attention(q, k, v)


def test_half_precision_accumulates_in_float32() -> None:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 64, 16, generator=generator) for _ in range(3))
    reference = F.scaled_dot_product_attention(q, k, v)
    tiled = tiled_attention(q.half(), k.half(), v.half(), block_size=16)
    assert tiled.dtype == torch.float16
    torch.testing.assert_close(tiled.float(), reference, rtol=0, atol=5e-3)
