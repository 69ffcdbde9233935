"""Every builder's shape and content on small hand-checked cases, and its argument errors."""

from __future__ import annotations

import pytest
import torch

from attention import (
    bidirectional_allowed,
    block_diagonal_allowed,
    causal_allowed,
    intersect_allowed,
    key_padding_allowed,
    prefix_lm_allowed,
    query_padding_allowed,
    sliding_window_allowed,
    source_padding_allowed,
    union_allowed,
)
from attention.errors import (
    ArgumentTypeError,
    AttentionShapeError,
    MaskArgumentError,
    MaskDtypeError,
)


def rows(*lines: str) -> torch.Tensor:
    """Build an expected mask from strings of 1s and 0s (1 = may attend)."""
    return torch.tensor([[c == "1" for c in line] for line in lines])


def test_causal_square_is_lower_triangle_with_diagonal() -> None:
    assert torch.equal(causal_allowed(4), rows("1000", "1100", "1110", "1111"))
    assert causal_allowed(4).dtype == torch.bool


def test_causal_upper_left_when_fewer_queries_than_keys() -> None:
    assert torch.equal(causal_allowed(2, 4), rows("1000", "1100"))


def test_causal_lower_right_when_fewer_queries_than_keys() -> None:
    # two new tokens decoded against a cache of two earlier ones
    assert torch.equal(causal_allowed(2, 4, alignment="lower_right"), rows("1110", "1111"))


def test_causal_alignments_when_more_queries_than_keys() -> None:
    assert torch.equal(causal_allowed(3, 2), rows("10", "11", "11"))
    assert torch.equal(causal_allowed(3, 2, alignment="lower_right"), rows("00", "10", "11"))


def test_causal_alignments_agree_when_square() -> None:
    assert torch.equal(causal_allowed(5, alignment="lower_right"), causal_allowed(5))


def test_causal_upper_left_matches_torch_is_causal() -> None:
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(1, 3, 4, generator=generator, dtype=torch.float64)
    k = torch.randn(1, 5, 4, generator=generator, dtype=torch.float64)
    v = torch.randn(1, 5, 2, generator=generator, dtype=torch.float64)
    fused = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    masked = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=causal_allowed(3, 5)
    )
    torch.testing.assert_close(fused, masked)


def test_causal_lower_right_matches_torch_bias() -> None:
    from torch.nn.attention.bias import causal_lower_right

    generator = torch.Generator().manual_seed(0)
    q = torch.randn(1, 1, 2, 4, generator=generator, dtype=torch.float64)
    k = torch.randn(1, 1, 5, 4, generator=generator, dtype=torch.float64)
    v = torch.randn(1, 1, 5, 2, generator=generator, dtype=torch.float64)
    bias = causal_lower_right(2, 5)
    fused = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    masked = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=causal_allowed(2, 5, alignment="lower_right")
    )
    torch.testing.assert_close(fused, masked)


def test_causal_rejects_unknown_alignment_and_negative_lengths() -> None:
    with pytest.raises(MaskArgumentError, match=r"alignment must be 'upper_left' or 'lower_right'"):
        causal_allowed(2, 3, alignment="bottom_right")  # type: ignore[arg-type]
    with pytest.raises(MaskArgumentError, match=r"query_length must be >= 0, got -1"):
        causal_allowed(-1)
    with pytest.raises(MaskArgumentError, match=r"key_length must be >= 0, got -2"):
        causal_allowed(2, -2)
    with pytest.raises(ArgumentTypeError, match=r"query_length must be an int, got float"):
        causal_allowed(2.0)  # type: ignore[arg-type]


def test_bidirectional_is_all_true() -> None:
    assert torch.equal(bidirectional_allowed(2, 3), rows("111", "111"))


def test_prefix_lm() -> None:
    expected = rows("11000", "11000", "11100", "11110", "11111")
    assert torch.equal(prefix_lm_allowed(5, 2), expected)
    assert torch.equal(prefix_lm_allowed(3, 0), causal_allowed(3))
    assert torch.equal(prefix_lm_allowed(3, 3), bidirectional_allowed(3))


def test_prefix_lm_rejects_a_prefix_longer_than_the_sequence() -> None:
    with pytest.raises(MaskArgumentError, match=r"prefix_length must be <= length 3, got 4"):
        prefix_lm_allowed(3, 4)


def test_sliding_window_causal_and_symmetric() -> None:
    assert torch.equal(sliding_window_allowed(4, 2), rows("1000", "1100", "0110", "0011"))
    assert torch.equal(
        sliding_window_allowed(4, 2, causal=False), rows("1100", "1110", "0111", "0011")
    )
    assert torch.equal(sliding_window_allowed(3, 1), torch.eye(3, dtype=torch.bool))
    assert torch.equal(sliding_window_allowed(3, 10), causal_allowed(3))


@pytest.mark.parametrize("window", [0, -3])
def test_sliding_window_rejects_window_below_one(window: int) -> None:
    with pytest.raises(MaskArgumentError, match=rf"window must be >= 1, got {window}"):
        sliding_window_allowed(4, window)


def test_block_diagonal() -> None:
    assert torch.equal(
        block_diagonal_allowed([2, 3]),
        rows("11000", "11000", "00111", "00111", "00111"),
    )
    assert block_diagonal_allowed([0, 2]).shape == (2, 2)


def test_block_diagonal_rejects_negative_segments() -> None:
    with pytest.raises(MaskArgumentError, match=r"segment_lengths\[1\] must be >= 0, got -1"):
        block_diagonal_allowed([2, -1])


def test_packed_causal_is_block_diagonal_and_causal() -> None:
    packed = intersect_allowed(block_diagonal_allowed([2, 2]), causal_allowed(4))
    assert torch.equal(packed, rows("1000", "1100", "0010", "0011"))


def test_key_padding() -> None:
    mask = key_padding_allowed([3, 1, 0], 3)
    assert mask.shape == (3, 1, 3)
    assert torch.equal(mask[:, 0], rows("111", "100", "000"))
    tensor_lengths = key_padding_allowed(torch.tensor([2, 3]), 3)
    assert torch.equal(tensor_lengths[:, 0], rows("110", "111"))


@pytest.mark.parametrize(
    ("lengths", "message"),
    [
        ([2, -1], r"lengths must be >= 0, got \[2, -1\]"),
        ([4], r"lengths must be <= the padded length source_length=3, got \[4\]"),
    ],
)
def test_key_padding_rejects_bad_lengths(lengths: list[float], message: str) -> None:
    with pytest.raises(MaskArgumentError, match=message):
        key_padding_allowed(lengths, 3)  # type: ignore[arg-type]


def test_key_padding_rejects_lengths_that_are_not_ints() -> None:
    with pytest.raises(ArgumentTypeError, match=r"lengths must hold ints, got float 1.5"):
        key_padding_allowed([1.5], 3)  # type: ignore[list-item]


def test_key_padding_rejects_float_tensor_lengths() -> None:
    with pytest.raises(
        ArgumentTypeError, match=r"1-D integer tensor \[B\] or a list of ints, got torch.float32"
    ):
        key_padding_allowed(torch.tensor([1.0]), 3)


def test_source_padding_for_cross_attention() -> None:
    mask = source_padding_allowed([2, 4], source_length=4, query_length=3)
    assert mask.shape == (2, 3, 4)
    assert torch.equal(mask[0], rows("1100", "1100", "1100"))
    assert torch.equal(mask[1], rows("1111", "1111", "1111"))


def test_query_padding_is_for_outputs() -> None:
    mask = query_padding_allowed([1, 3], 3)
    assert mask.shape == (2, 3)
    assert torch.equal(mask, rows("100", "111"))


def test_intersect_and_union_broadcast() -> None:
    causal = causal_allowed(3)  # [3, 3]
    padding = key_padding_allowed([2, 3], 3)  # [2, 1, 3]
    both = intersect_allowed(causal, padding)
    assert both.shape == (2, 3, 3)
    assert torch.equal(both[0], rows("100", "110", "110"))
    assert torch.equal(both[1], causal)
    either = union_allowed(causal, padding)
    assert torch.equal(either[0], rows("110", "110", "111"))


def test_combining_rejects_non_boolean_and_mismatched_masks() -> None:
    with pytest.raises(MaskDtypeError, match=r"intersect_allowed argument 1 must be a torch.bool"):
        intersect_allowed(causal_allowed(2), torch.ones(2, 2))
    with pytest.raises(
        AttentionShapeError, match=r"do not broadcast together \(argument 0 \[2, 2\], argument 1"
    ):
        union_allowed(causal_allowed(2), causal_allowed(3))
    with pytest.raises(MaskArgumentError, match=r"needs at least one mask"):
        union_allowed()
