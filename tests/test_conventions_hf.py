"""The Hugging Face ``attention_mask`` converters: 1 = attend / 0 = padding, exact round trips.

Transformers itself is not needed: its ``attention_mask`` is an integer ``[B, S]`` tensor, and the
convention (1 = the key may be attended to) is checked against the library in the ecosystem
semantics check (row ``transformers.attention_mask``).  Here the converters are checked by what
they must agree with: the MHA key-padding mask, the additive mask, and SDPA's weights.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import (
    additive_to_allowed,
    allowed_to_additive,
    allowed_to_hf_attention_mask,
    allowed_to_mha_key_padding_mask,
    hf_attention_mask_to_allowed,
    key_padding_allowed,
    mha_key_padding_mask_to_allowed,
)
from attention.errors import (
    ArgumentTypeError,
    AttentionShapeError,
    MaskArgumentError,
    MaskDtypeError,
    MaskValueError,
)

INTEGER_DTYPES = [torch.uint8, torch.int8, torch.int32, torch.int64, torch.bool]


@st.composite
def hf_masks(draw: st.DrawFn) -> torch.Tensor:
    """A [B, S] 0/1 mask with a random dtype among the integer ones tokenizers and users produce."""
    batch, source = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    ones = torch.rand(batch, source, generator=generator) < 0.6
    return ones.to(draw(st.sampled_from(INTEGER_DTYPES)))


@settings(max_examples=100)
@given(hf_masks())
def test_round_trip_through_every_other_convention(attention_mask: torch.Tensor) -> None:
    allowed = hf_attention_mask_to_allowed(attention_mask)  # [B, 1, S]
    assert allowed.dtype == torch.bool
    assert allowed.shape == (attention_mask.shape[0], 1, attention_mask.shape[1])
    # 1 = attend: exactly the entries that are 1 are allowed
    assert torch.equal(allowed[:, 0, :], attention_mask == 1)
    key_padding_mask = allowed_to_mha_key_padding_mask(allowed)  # forbidden: True = padded
    assert torch.equal(key_padding_mask, attention_mask == 0)
    additive = allowed_to_additive(allowed, torch.float32)  # 0 / -inf
    back = allowed_to_hf_attention_mask(additive_to_allowed(additive), dtype=attention_mask.dtype)
    assert back.dtype == attention_mask.dtype
    assert torch.equal(back, attention_mask)
    again = allowed_to_hf_attention_mask(mha_key_padding_mask_to_allowed(key_padding_mask))
    assert torch.equal(again, attention_mask.to(torch.long))


def test_the_padded_key_gets_no_weight_in_sdpa() -> None:
    attention_mask = torch.tensor([[1, 1, 0], [1, 1, 1]])  # [B=2, S=3]: batch 0's key 2 is padding
    allowed = hf_attention_mask_to_allowed(attention_mask)  # [B, 1, S]
    q = torch.zeros(2, 1, 2, 4, dtype=torch.float64)  # [B, H, L=2, D]: every score is 0
    k = torch.zeros(2, 1, 3, 4, dtype=torch.float64)  # [B, H, S=3, D]
    v = torch.eye(3, 4, dtype=torch.float64).expand(2, 1, 3, 4)  # output row = weight row
    weights = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])[..., :3]
    assert weights[0, 0].tolist() == [[0.5, 0.5, 0.0]] * 2
    assert torch.allclose(weights[1, 0], torch.full((2, 3), 1 / 3, dtype=torch.float64))


def test_it_agrees_with_the_package_key_padding_builder() -> None:
    assert torch.equal(
        hf_attention_mask_to_allowed(torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]])),
        key_padding_allowed([3, 1], 4),
    )


@pytest.mark.parametrize("bad", [2, -1, 7])
def test_values_other_than_0_and_1_are_rejected(bad: int) -> None:
    with pytest.raises(
        MaskValueError, match=rf"only 0 \(padding\) and 1 \(attend\), got e\.g\. \[{bad}\]"
    ):
        hf_attention_mask_to_allowed(torch.tensor([[1, bad, 0]]))


def test_float_masks_are_rejected_not_cast() -> None:
    # an expanded HF mask is additive (0 keeps a key): casting it would invert it
    with pytest.raises(MaskDtypeError, match="additive_to_allowed"):
        hf_attention_mask_to_allowed(torch.tensor([[0.0, -1e9]]))
    with pytest.raises(MaskDtypeError, match=r"got dtype torch\.float32"):
        hf_attention_mask_to_allowed(torch.tensor([[1.0, 0.0]]))
    with pytest.raises(ArgumentTypeError, match="got list"):
        hf_attention_mask_to_allowed([[1, 0]])  # type: ignore[arg-type]


def test_shapes() -> None:
    with pytest.raises(AttentionShapeError, match=r"must be \[B, S\].*got shape \[3\]"):
        hf_attention_mask_to_allowed(torch.tensor([1, 1, 0]))
    with pytest.raises(
        AttentionShapeError, match=r"\[B, S\] or \[B, 1, S\], got shape \[1, 2, 3\]"
    ):
        allowed_to_hf_attention_mask(torch.ones(1, 2, 3, dtype=torch.bool))
    assert allowed_to_hf_attention_mask(torch.tensor([[True, False]])).tolist() == [[1, 0]]


def test_the_reverse_converter_wants_bool_and_an_integer_dtype() -> None:
    with pytest.raises(MaskDtypeError, match=r"torch\.bool"):
        allowed_to_hf_attention_mask(torch.tensor([[1, 0]]))
    with pytest.raises(MaskArgumentError, match=r"integer dtype or torch\.bool"):
        allowed_to_hf_attention_mask(torch.tensor([[True]]), dtype=torch.float32)
    as_bool = allowed_to_hf_attention_mask(torch.tensor([[True, False]]), dtype=torch.bool)
    assert as_bool.dtype == torch.bool
