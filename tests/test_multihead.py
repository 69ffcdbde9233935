"""MultiHeadAttention reproduces nn.MultiheadAttention once the weights are copied across."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attention import (
    MultiHeadAttention,
    allowed_to_mha_attn_mask,
    allowed_to_mha_key_padding_mask,
    causal_allowed,
    intersect_allowed,
    key_padding_allowed,
    mha_parameter_count,
)
from attention.errors import AttentionShapeError, MaskDtypeError


def _pair(batch_first: bool, bias: bool = True) -> tuple[nn.MultiheadAttention, MultiHeadAttention]:
    torch.manual_seed(0)
    reference = nn.MultiheadAttention(12, 3, bias=bias, batch_first=batch_first).double()
    if bias:  # torch initialises biases to zero; make them matter
        with torch.no_grad():
            reference.in_proj_bias.normal_()
            reference.out_proj.bias.normal_()
    return reference, MultiHeadAttention.from_torch(reference)


def _inputs(batch_first: bool, length: int = 4, source: int = 6) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(1)
    q = torch.randn(2, length, 12, generator=generator, dtype=torch.float64)  # [B, L, d]
    kv = torch.randn(2, source, 12, generator=generator, dtype=torch.float64)  # [B, S, d]
    if not batch_first:
        return q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1)
    return q, kv, kv


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("average", [True, False])
def test_matches_torch_without_mask(batch_first: bool, bias: bool, average: bool) -> None:
    reference, ours = _pair(batch_first, bias)
    q, k, v = _inputs(batch_first)
    expected, expected_weights = reference(q, k, v, average_attn_weights=average)
    out, weights = ours(q, k, v, average_attn_weights=average)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    assert weights is not None
    torch.testing.assert_close(weights, expected_weights, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("batch_first", [True, False])
def test_matches_torch_with_causal_and_padding_masks(batch_first: bool) -> None:
    reference, ours = _pair(batch_first)
    q, k, v = _inputs(batch_first, length=5, source=5)
    causal = causal_allowed(5)  # [L, S], True = may attend
    padding = key_padding_allowed([5, 3], 5)  # [B, 1, S], True = real key
    expected, expected_weights = reference(
        q,
        k,
        v,
        attn_mask=allowed_to_mha_attn_mask(causal),  # True = forbidden
        key_padding_mask=allowed_to_mha_key_padding_mask(padding),  # True = padded
        average_attn_weights=False,
    )
    out, weights = ours(q, k, v, intersect_allowed(causal, padding), average_attn_weights=False)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(weights, expected_weights, rtol=1e-12, atol=1e-12)
    assert weights is not None
    assert torch.all(weights[1, :, :, 3:] == 0)


def test_matches_torch_with_per_head_masks() -> None:
    reference, ours = _pair(batch_first=True)
    q, k, v = _inputs(True, length=3, source=3)
    generator = torch.Generator().manual_seed(5)
    allowed = torch.rand(2, 3, 3, 3, generator=generator) < 0.5  # [B, H, L, S]
    allowed[..., 0] = True  # every row keeps a key
    expected, _ = reference(q, k, v, attn_mask=allowed_to_mha_attn_mask(allowed))
    out, _ = ours(q, k, v, allowed)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)


def test_need_weights_false_returns_none() -> None:
    _, ours = _pair(batch_first=True)
    q, k, v = _inputs(True)
    out, weights = ours(q, k, v, need_weights=False)
    assert weights is None
    assert out.shape == (2, 4, 12)


def test_heads_and_divisibility() -> None:
    with pytest.raises(
        ValueError, match=r"embed_dim=10 must be a positive multiple of num_heads=3"
    ):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match=r"num_heads=0"):
        MultiHeadAttention(8, 0)
    assert MultiHeadAttention(12, 4).head_dim == 3


def test_input_and_mask_errors() -> None:
    _, ours = _pair(batch_first=True)
    q, k, v = _inputs(True)
    with pytest.raises(
        AttentionShapeError, match=r"query must be \[B, T, d_model\] with d_model=12"
    ):
        ours(q[..., :6], k, v)
    with pytest.raises(MaskDtypeError, match=r"allowed must be a torch.bool tensor"):
        ours(q, k, v, torch.ones(4, 6))
    with pytest.raises(AttentionShapeError, match=r"does not broadcast to \[B, H, L, S\]"):
        ours(q, k, v, torch.ones(5, 6, dtype=torch.bool))


def test_from_torch_refuses_what_it_cannot_copy() -> None:
    with pytest.raises(ValueError, match=r"kdim == vdim == embed_dim"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, kdim=4, vdim=4))
    with pytest.raises(ValueError, match=r"add_bias_kv"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, add_bias_kv=True))


@pytest.mark.parametrize(("embed_dim", "num_heads"), [(8, 1), (8, 2), (12, 3), (512, 8)])
@pytest.mark.parametrize("bias", [True, False])
def test_parameter_count_matches_both_modules(embed_dim: int, num_heads: int, bias: bool) -> None:
    expected = mha_parameter_count(embed_dim, num_heads, bias=bias)
    torch_module = nn.MultiheadAttention(embed_dim, num_heads, bias=bias)
    ours = MultiHeadAttention(embed_dim, num_heads, bias=bias)
    assert sum(p.numel() for p in torch_module.parameters()) == expected
    assert sum(p.numel() for p in ours.parameters()) == expected
    assert expected == 4 * embed_dim**2 + (4 * embed_dim if bias else 0)
