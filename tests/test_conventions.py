"""Converters: exact round trips, dtype handling, and agreement with the real torch APIs."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import (
    additive_to_allowed,
    additive_to_forbidden,
    allowed_to_additive,
    allowed_to_forbidden,
    allowed_to_mha_attn_mask,
    allowed_to_mha_key_padding_mask,
    causal_allowed,
    forbidden_to_additive,
    forbidden_to_allowed,
    key_padding_allowed,
    mha_attn_mask_to_allowed,
    mha_key_padding_mask_to_allowed,
    scaled_dot_product_attention,
)
from attention.errors import AttentionShapeError, MaskArgumentError, MaskDtypeError, MaskValueError
from tests.strategies import random_allowed

FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


@st.composite
def boolean_masks(draw: st.DrawFn) -> torch.Tensor:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    return torch.rand(shape, generator=generator) < 0.5


@settings(max_examples=100)
@given(boolean_masks(), st.sampled_from(FLOAT_DTYPES))
def test_every_round_trip_is_exact(mask: torch.Tensor, dtype: torch.dtype) -> None:
    assert torch.equal(forbidden_to_allowed(allowed_to_forbidden(mask)), mask)
    assert torch.equal(allowed_to_forbidden(forbidden_to_allowed(mask)), mask)
    assert torch.equal(additive_to_allowed(allowed_to_additive(mask, dtype)), mask)
    assert torch.equal(additive_to_forbidden(forbidden_to_additive(mask, dtype)), mask)
    additive = allowed_to_additive(mask, dtype)
    assert additive.dtype == dtype
    assert torch.equal(torch.isneginf(additive), ~mask)
    assert torch.all(additive[mask] == 0)


def test_additive_is_exact_in_half_precision_where_minus_1e9_is_not() -> None:
    additive = allowed_to_additive(torch.tensor([True, False]), torch.float16)
    assert additive.tolist() == [0.0, -math.inf]
    # the finite stand-in overflows to -inf in float16 anyway
    assert torch.tensor(-1e9, dtype=torch.float16).item() == -math.inf


def test_additive_to_allowed_refuses_lossy_masks() -> None:
    with pytest.raises(MaskValueError, match=r"values other than 0 and -inf \(e.g. \[-1000000000"):
        additive_to_allowed(torch.tensor([0.0, -1e9]))
    with pytest.raises(MaskValueError, match=r"holds NaN"):
        additive_to_allowed(torch.tensor([0.0, math.nan]))


def test_boolean_converters_reject_other_dtypes() -> None:
    with pytest.raises(MaskDtypeError, match=r"allowed must be a torch.bool tensor"):
        allowed_to_forbidden(torch.tensor([1, 0]))
    with pytest.raises(MaskDtypeError, match=r"forbidden must be a torch.bool tensor"):
        forbidden_to_allowed(torch.tensor([1.0]))
    with pytest.raises(MaskArgumentError, match=r"dtype must be a floating-point dtype"):
        allowed_to_additive(torch.tensor([True]), torch.int32)


def _mha(embed_dim: int = 8, num_heads: int = 2) -> torch.nn.MultiheadAttention:
    torch.manual_seed(0)
    return torch.nn.MultiheadAttention(embed_dim, num_heads, batch_first=True).double().eval()


def _sdpa_weights(q: torch.Tensor, k: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores.masked_fill(~allowed, -math.inf).softmax(-1)


@pytest.mark.parametrize("mask_rank", [2, 3, 4])
def test_mha_attn_mask_masks_exactly_what_allowed_forbids(mask_rank: int) -> None:
    batch, length, heads = 2, 4, 2
    mha = _mha(num_heads=heads)
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(batch, length, 8, generator=generator, dtype=torch.float64)
    shape = {2: (length, length), 3: (batch, length, length), 4: (batch, heads, length, length)}
    allowed = random_allowed(generator, shape[mask_rank], 0.5)
    attn_mask = allowed_to_mha_attn_mask(allowed, num_heads=heads if mask_rank == 3 else None)
    _, weights = mha(x, x, x, attn_mask=attn_mask, average_attn_weights=False)  # [B, H, L, S]
    full = allowed if mask_rank == 4 else allowed.reshape(-1, 1, length, length)
    full = full.expand(batch, heads, length, length)
    assert torch.all(weights[~full] == 0)
    assert torch.all(weights[full] > 0)


def test_mha_attn_mask_round_trips_through_the_head_layout() -> None:
    generator = torch.Generator().manual_seed(0)
    allowed = random_allowed(generator, (3, 2, 4, 5), 0.5)  # [B, H, L, S]
    attn_mask = allowed_to_mha_attn_mask(allowed)  # [B*H, L, S]
    assert attn_mask.shape == (6, 4, 5)
    assert torch.equal(mha_attn_mask_to_allowed(attn_mask, num_heads=2), allowed)
    assert torch.equal(mha_attn_mask_to_allowed(attn_mask), ~attn_mask)


def test_mha_attn_mask_reads_float_masks_as_additive() -> None:
    additive = allowed_to_additive(causal_allowed(3))
    assert torch.equal(mha_attn_mask_to_allowed(additive), causal_allowed(3))


def test_mha_attn_mask_errors() -> None:
    with pytest.raises(MaskArgumentError, match=r"pass num_heads >= 1"):
        allowed_to_mha_attn_mask(torch.ones(2, 3, 3, dtype=torch.bool))
    with pytest.raises(MaskArgumentError, match=r"has 2 heads .* but num_heads=3"):
        allowed_to_mha_attn_mask(torch.ones(1, 2, 3, 3, dtype=torch.bool), num_heads=3)
    with pytest.raises(AttentionShapeError, match=r"\[L, S\], \[B, L, S\] or \[B, H, L, S\]"):
        allowed_to_mha_attn_mask(torch.ones(3, dtype=torch.bool))
    with pytest.raises(MaskArgumentError, match=r"not a multiple of num_heads=4"):
        mha_attn_mask_to_allowed(torch.ones(6, 2, 2, dtype=torch.bool), num_heads=4)


def test_key_padding_mask_masks_exactly_the_padded_keys() -> None:
    mha = _mha()
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(2, 4, 8, generator=generator, dtype=torch.float64)
    allowed = key_padding_allowed([4, 2], 4)  # [B, 1, S]
    key_padding_mask = allowed_to_mha_key_padding_mask(allowed)  # [B, S], True = padded
    assert torch.equal(key_padding_mask, torch.tensor([[0, 0, 0, 0], [0, 0, 1, 1]]).bool())
    _, weights = mha(x, x, x, key_padding_mask=key_padding_mask)  # [B, L, S]
    assert torch.all(weights[1, :, 2:] == 0)
    assert torch.all(weights[0] > 0)
    assert torch.equal(mha_key_padding_mask_to_allowed(key_padding_mask), allowed)


def test_key_padding_shapes() -> None:
    assert allowed_to_mha_key_padding_mask(torch.ones(2, 5, dtype=torch.bool)).shape == (2, 5)
    with pytest.raises(
        AttentionShapeError, match=r"\[B, S\] or \[B, 1, S\], got shape \[2, 3, 5\]"
    ):
        allowed_to_mha_key_padding_mask(torch.ones(2, 3, 5, dtype=torch.bool))
    with pytest.raises(AttentionShapeError, match=r"key_padding_mask must be \[B, S\]"):
        mha_key_padding_mask_to_allowed(torch.ones(5, dtype=torch.bool))
    additive = torch.tensor([[0.0, -math.inf]])
    assert mha_key_padding_mask_to_allowed(additive).tolist() == [[[True, False]]]


def test_sdpa_and_package_agree_on_converted_additive_masks() -> None:
    generator = torch.Generator().manual_seed(2)
    q = torch.randn(1, 3, 4, generator=generator, dtype=torch.float64)
    k = torch.randn(1, 5, 4, generator=generator, dtype=torch.float64)
    v = torch.randn(1, 5, 2, generator=generator, dtype=torch.float64)
    allowed = random_allowed(generator, (3, 5), 0.5)
    additive = allowed_to_additive(allowed, torch.float64)
    ours, weights = scaled_dot_product_attention(q, k, v, allowed)
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=additive))
    torch.testing.assert_close(weights[0], _sdpa_weights(q, k, allowed)[0])


def test_an_empty_mha_mask_splits_into_heads_without_inferring_a_size() -> None:
    """[B·H=0, L, S] with H=1 is [0, 1, L, S] (a reshape to -1 cannot tell B when nothing is there;
    found by the bad-input search)."""
    empty = torch.zeros(0, 0, 0, dtype=torch.bool)  # [B·H=0, L=0, S=0]
    assert mha_attn_mask_to_allowed(empty, num_heads=1).shape == (0, 1, 0, 0)
