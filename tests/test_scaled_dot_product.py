"""The single-head function against torch, its properties, the lesson's numbers and its errors."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import causal_allowed, scaled_dot_product_attention
from attention.errors import (
    AttentionShapeError,
    InputDtypeError,
    MaskDtypeError,
    MaskValueError,
    NoAllowedKeyError,
    NonFiniteError,
)
from tests import agreement
from tests.strategies import Problem, problems

TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5}


def _check_agreement(problem: Problem, dtype: torch.dtype) -> None:
    q, k, v, allowed = problem.query, problem.key, problem.value, problem.allowed
    ours, weights = scaled_dot_product_attention(q, k, v, allowed)  # [B, L, Dv], [B, L, S]
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # True = allowed
    torch.testing.assert_close(ours, theirs, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
    ones = torch.ones(weights.shape[:-1], dtype=dtype)
    torch.testing.assert_close(weights.sum(-1), ones, rtol=0, atol=10 * TOLERANCE[dtype])
    if allowed is not None:
        forbidden = ~allowed.expand(weights.shape)
        assert torch.all(weights[forbidden] == 0), "a forbidden key got a nonzero weight"


@settings(max_examples=agreement.register("float64", 1200))
@given(problems(torch.float64))
def test_agrees_with_torch_sdpa_float64(problem: Problem) -> None:
    _check_agreement(problem, torch.float64)
    agreement.count("float64")


@settings(max_examples=agreement.register("float32", 600))
@given(problems(torch.float32))
def test_agrees_with_torch_sdpa_float32(problem: Problem) -> None:
    _check_agreement(problem, torch.float32)
    agreement.count("float32")


@settings(max_examples=agreement.register("scale", 200))
@given(problems(torch.float64), st.floats(0.01, 4.0))
def test_custom_scale_agrees_with_torch(problem: Problem, scale: float) -> None:
    q, k, v, allowed = problem.query, problem.key, problem.value, problem.allowed
    ours, _ = scaled_dot_product_attention(q, k, v, allowed, scale=scale)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=scale)
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    agreement.count("scale")


@settings(max_examples=agreement.register("additive", 200))
@given(problems(torch.float64, masked=True))
def test_additive_mask_agrees_with_torch_float_mask(problem: Problem) -> None:
    q, k, v, allowed = problem.query, problem.key, problem.value, problem.allowed
    assert allowed is not None
    generator = torch.Generator().manual_seed(q.numel())
    bias = torch.randn(allowed.shape, generator=generator, dtype=torch.float64)
    additive = bias.masked_fill(~allowed, float("-inf"))  # a bias plus -inf at forbidden keys
    ours, weights = scaled_dot_product_attention(q, k, v, additive=additive)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=additive)  # float = added
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    assert torch.all(weights[~allowed.expand(weights.shape)] == 0)
    agreement.count("additive")


@settings(max_examples=100)
@given(problems(torch.float64, masked=True), st.integers(0, 2**31 - 1))
def test_values_at_forbidden_keys_never_change_the_output(problem: Problem, seed: int) -> None:
    q, k, v, allowed = problem.query, problem.key, problem.value, problem.allowed
    assert allowed is not None
    out, _ = scaled_dot_product_attention(q, k, v, allowed)  # [B, L, Dv]
    generator = torch.Generator().manual_seed(seed)
    full = allowed.expand(out.shape[0], out.shape[1], k.shape[1])  # [B, L, S]
    for j in range(k.shape[1]):
        changed = v.clone()
        changed[:, j] += 100 * torch.randn(changed[:, j].shape, generator=generator, dtype=v.dtype)
        new, _ = scaled_dot_product_attention(q, k, changed, allowed)
        blind = ~full[:, :, j]  # [B, L]: queries that may not read key j
        assert torch.equal(new[blind], out[blind])


def test_keys_forbidden_for_every_query_can_hold_anything() -> None:
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 4, generator=generator, dtype=torch.float64)
    k = torch.randn(2, 5, 4, generator=generator, dtype=torch.float64)
    v = torch.randn(2, 5, 2, generator=generator, dtype=torch.float64)
    allowed = torch.tensor([True, True, False, True, False])  # key 2 and 4 are padding
    out, _ = scaled_dot_product_attention(q, k, v, allowed)
    k2, v2 = k.clone(), v.clone()
    k2[:, ~allowed], v2[:, ~allowed] = 1e3, -1e3
    assert torch.equal(scaled_dot_product_attention(q, k2, v2, allowed)[0], out)


def _self_attention(x: torch.Tensor, allowed: torch.Tensor | None) -> torch.Tensor:
    generator = torch.Generator().manual_seed(1)
    w_q, w_k, w_v = (torch.randn(4, 4, generator=generator, dtype=x.dtype) for _ in range(3))
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, allowed)[0]


@settings(max_examples=50)
@given(st.integers(2, 7), st.integers(0, 2**31 - 1))
def test_permutation_equivariance_without_mask(length: int, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1, length, 4, generator=generator, dtype=torch.float64)  # [1, T, 4]
    perm = torch.randperm(length, generator=generator)
    torch.testing.assert_close(_self_attention(x[:, perm], None), _self_attention(x, None)[:, perm])


@settings(max_examples=50)
@given(st.integers(2, 7), st.integers(0, 2**31 - 1))
def test_permutation_equivariance_with_mask_needs_both_axes_permuted(
    length: int, seed: int
) -> None:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1, length, 4, generator=generator, dtype=torch.float64)
    perm = torch.randperm(length, generator=generator)
    allowed = causal_allowed(length)  # [T, T]
    expected = _self_attention(x, allowed)[:, perm]
    permuted_mask = allowed[perm][:, perm]  # rows and columns
    torch.testing.assert_close(_self_attention(x[:, perm], permuted_mask), expected)


def test_permuting_tokens_but_not_the_causal_mask_breaks_equivariance() -> None:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4, 4, generator=generator, dtype=torch.float64)
    perm = torch.tensor([3, 2, 1, 0])
    allowed = causal_allowed(4)
    expected = _self_attention(x, allowed)[:, perm]
    assert not torch.allclose(_self_attention(x[:, perm], allowed), expected)


# The lesson's worked examples, through the public function.


def test_causal_example_gives_2_3_and_14_over_3() -> None:
    q = k = torch.zeros(1, 3, 2, dtype=torch.float64)
    v = torch.tensor([[[2.0], [4.0], [8.0]]], dtype=torch.float64)
    allowed = torch.ones(3, 3, dtype=torch.bool).tril()
    out, weights = scaled_dot_product_attention(q, k, v, allowed)
    torch.testing.assert_close(out[0, :, 0], torch.tensor([2.0, 3.0, 14.0 / 3.0], dtype=q.dtype))
    assert torch.all(weights[0][~allowed] == 0)
    inverted, _ = scaled_dot_product_attention(q, k, v, ~allowed | torch.eye(3, dtype=torch.bool))
    assert not torch.allclose(inverted, out), "the mask's polarity must matter"


def _one_query(query: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    q = torch.tensor([[[query]]], dtype=torch.float64)  # [1, 1, 1]
    k = torch.tensor([[[0.0], [math.log(3.0)]]], dtype=torch.float64)  # [1, 2, 1]
    v = torch.tensor([[[10.0], [20.0]]], dtype=torch.float64)  # [1, 2, 1]
    return q, k, v


def test_one_query_example_gives_a_quarter_three_quarters_and_17_5() -> None:
    out, weights = scaled_dot_product_attention(*_one_query(1.0))
    torch.testing.assert_close(weights[0, 0], torch.tensor([0.25, 0.75], dtype=torch.float64))
    assert out.item() == pytest.approx(17.5, abs=1e-12)


def test_one_query_example_with_the_second_key_masked_gives_10() -> None:
    out, weights = scaled_dot_product_attention(*_one_query(1.0), torch.tensor([True, False]))
    assert weights[0, 0].tolist() == [1.0, 0.0]
    assert out.item() == 10.0


def test_one_query_example_with_query_zero_gives_15() -> None:
    out, weights = scaled_dot_product_attention(*_one_query(0.0))
    assert weights[0, 0].tolist() == [0.5, 0.5]
    assert out.item() == 15.0


def test_scores_are_scaled_by_one_over_sqrt_d() -> None:
    q = torch.tensor([[[1.0, 1.0, 1.0, 1.0]]], dtype=torch.float64)  # D = 4
    k = torch.tensor([[[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]], dtype=torch.float64)
    v = torch.tensor([[[1.0], [0.0]]], dtype=torch.float64)
    _, weights = scaled_dot_product_attention(q, k, v)
    # scores 4 / sqrt(4) = 2 and 0, so the first weight is e^2 / (e^2 + 1)
    assert weights[0, 0, 0].item() == pytest.approx(math.exp(2) / (math.exp(2) + 1), abs=1e-15)


# Every error path: type and message.


def _qkv(
    b: int = 1, length: int = 2, s: int = 3, d: int = 4, dv: int = 2
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return torch.zeros(b, length, d), torch.zeros(b, s, d), torch.zeros(b, s, dv)


@pytest.mark.parametrize(
    ("index", "shape", "message"),
    [
        (0, (2, 4), r"query must be 3-D \[B, L, D\], got 2-D shape \[2, 4\]"),
        (1, (1, 1, 3, 4), r"key must be 3-D \[B, S, D\], got 4-D shape \[1, 1, 3, 4\]"),
        (2, (3,), r"value must be 3-D \[B, S, Dv\], got 1-D shape \[3\]"),
    ],
)
def test_non_3d_inputs_are_rejected(index: int, shape: tuple[int, ...], message: str) -> None:
    args = list(_qkv())
    args[index] = torch.zeros(shape)
    with pytest.raises(AttentionShapeError, match=message):
        scaled_dot_product_attention(*args)


def test_error_types_are_value_and_type_errors() -> None:
    assert issubclass(AttentionShapeError, ValueError)
    assert issubclass(NoAllowedKeyError, ValueError)
    assert issubclass(NonFiniteError, ValueError)
    assert issubclass(MaskDtypeError, TypeError)
    assert issubclass(InputDtypeError, TypeError)


def test_mismatched_batch_sizes() -> None:
    q, _, _ = _qkv()
    with pytest.raises(AttentionShapeError, match=r"B dimensions must match: query \[1, 2, 4\]"):
        scaled_dot_product_attention(q, torch.zeros(2, 3, 4), torch.zeros(2, 3, 2))


def test_mismatched_key_dimension() -> None:
    q, _, v = _qkv()
    with pytest.raises(AttentionShapeError, match=r"share the key dimension D: .* D=4, .* D=5"):
        scaled_dot_product_attention(q, torch.zeros(1, 3, 5), v)


def test_mismatched_source_length() -> None:
    q, k, _ = _qkv()
    with pytest.raises(AttentionShapeError, match=r"share the source length S: .* S=3, .* S=4"):
        scaled_dot_product_attention(q, k, torch.zeros(1, 4, 2))


def test_empty_source() -> None:
    with pytest.raises(AttentionShapeError, match=r"source length S must be positive"):
        scaled_dot_product_attention(*_qkv(s=0))


def test_zero_key_dimension() -> None:
    with pytest.raises(AttentionShapeError, match=r"key dimension D must be positive"):
        scaled_dot_product_attention(*_qkv(d=0))


@pytest.mark.parametrize("name", ["query", "key", "value"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_inputs(name: str, bad: float) -> None:
    args = dict(zip(["query", "key", "value"], _qkv(), strict=True))
    args[name][0, 0, 0] = bad
    with pytest.raises(NonFiniteError, match=rf"{name} holds NaN or ±inf"):
        scaled_dot_product_attention(**args)


def test_overflowing_scores() -> None:
    q = torch.full((1, 1, 4), 300.0, dtype=torch.float16)
    k = torch.full((1, 2, 4), 300.0, dtype=torch.float16)
    v = torch.zeros(1, 2, 1, dtype=torch.float16)
    with pytest.raises(NonFiniteError, match=r"scores .* overflowed to ±inf in torch.float16"):
        scaled_dot_product_attention(q, k, v)


def test_row_without_allowed_key_names_the_row() -> None:
    allowed = torch.tensor([[True, False, True], [False, False, False]])  # [L=2, S=3]
    with pytest.raises(
        NoAllowedKeyError, match=r"query row \(batch 0, position 1\) has no allowed"
    ):
        scaled_dot_product_attention(*_qkv(), allowed)


def test_additive_row_of_only_minus_inf_is_a_row_without_allowed_key() -> None:
    additive = torch.tensor([[0.0, 0.0, 0.0], [-math.inf, -math.inf, -math.inf]])
    with pytest.raises(NoAllowedKeyError, match=r"\(batch 0, position 1\)"):
        scaled_dot_product_attention(*_qkv(), additive=additive)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8])
def test_non_boolean_allowed_is_a_type_error(dtype: torch.dtype) -> None:
    with pytest.raises(MaskDtypeError, match=rf"allowed must be a torch.bool tensor .* {dtype}"):
        scaled_dot_product_attention(*_qkv(), torch.ones(2, 3, dtype=dtype))


def test_allowed_that_does_not_broadcast() -> None:
    with pytest.raises(
        AttentionShapeError, match=r"allowed has shape \[2, 2\], which does not broadcast to"
    ):
        scaled_dot_product_attention(*_qkv(), torch.ones(2, 2, dtype=torch.bool))


def test_allowed_that_would_grow_the_batch_is_rejected() -> None:
    with pytest.raises(AttentionShapeError, match=r"\[B, L, S\] = \[1, 2, 3\]"):
        scaled_dot_product_attention(*_qkv(), torch.ones(4, 2, 3, dtype=torch.bool))


def test_additive_must_be_floating() -> None:
    with pytest.raises(MaskDtypeError, match=r"additive must be a floating-point tensor"):
        scaled_dot_product_attention(*_qkv(), additive=torch.ones(2, 3, dtype=torch.bool))


@pytest.mark.parametrize(("bad", "word"), [(float("nan"), "NaN"), (float("inf"), r"\+inf")])
def test_additive_rejects_nan_and_plus_inf(bad: float, word: str) -> None:
    additive = torch.zeros(2, 3)
    additive[0, 1] = bad
    with pytest.raises(MaskValueError, match=rf"additive holds {word}"):
        scaled_dot_product_attention(*_qkv(), additive=additive)


def test_additive_in_another_dtype_is_a_type_error() -> None:
    with pytest.raises(MaskDtypeError, match=r"additive has dtype torch.float64 but the scores"):
        scaled_dot_product_attention(*_qkv(), additive=torch.zeros(2, 3, dtype=torch.float64))


def test_integer_inputs_are_a_type_error() -> None:
    q, k, v = _qkv()
    with pytest.raises(InputDtypeError, match=r"query must be a floating-point tensor"):
        scaled_dot_product_attention(q.long(), k, v)


def test_mixed_dtypes_are_a_type_error() -> None:
    q, k, v = _qkv()
    with pytest.raises(InputDtypeError, match=r"share one dtype"):
        scaled_dot_product_attention(q.double(), k, v)


def test_allowed_and_additive_combine() -> None:
    q, k, v = _one_query(1.0)
    additive = torch.tensor([0.0, math.log(3.0)], dtype=torch.float64)  # favour key 1 more
    allowed = torch.tensor([True, True])
    _, weights = scaled_dot_product_attention(q, k, v, allowed, additive=additive)
    # scores [0, 2 ln 3] → [1, 9] / 10
    torch.testing.assert_close(weights[0, 0], torch.tensor([0.1, 0.9], dtype=torch.float64))
