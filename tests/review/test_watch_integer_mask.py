"""AW220: an additive mask of two integers one apart, a 0/1 mask negated or inverted as numbers.

``~`` of an integer 0/1 mask is -1 and -2, ``-m`` or ``m - 1`` is -1 and 0: added to the scores,
such a mask penalises one set of keys by 1 and masks none.  Biases are left alone: an ALiBi or
relative-position bias has fractional or many values.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from attention.review import watch

KEEP = torch.tensor([[1, 1, 0, 1], [1, 0, 0, 0]])  # [B, S], 1 = real token
Q = torch.randn(2, 2, 3, 4, generator=torch.Generator().manual_seed(0))


def codes(mask: torch.Tensor) -> list[str]:
    with warnings.catch_warnings(record=True), watch() as seen:
        F.scaled_dot_product_attention(
            Q, Q[..., :1, :].expand(2, 2, 4, 4), Q[..., :1, :].expand(2, 2, 4, 4), attn_mask=mask
        )
    assert seen.errors == []
    return [finding.code for finding in seen.findings]


@pytest.mark.parametrize(
    "mask",
    [(~KEEP).float(), -KEEP.float(), KEEP.float() - 1],
    ids=["inverted", "negated", "minus-one"],
)
def test_a_zero_one_mask_turned_into_integers_one_apart(mask: torch.Tensor) -> None:
    assert codes(mask[:, None, None, :]) == ["AW220"]


@pytest.mark.parametrize(
    "mask",
    [
        torch.zeros(2, 4).masked_fill(KEEP == 0, float("-inf")),  # right
        torch.zeros(2, 4).masked_fill(KEEP == 0, torch.finfo(torch.float32).min),  # right
        -0.5 * torch.arange(4.0).expand(2, 4),  # a bias: many values
        torch.tensor([[0.0, -0.5, 0.0, -0.5]] * 2),  # a fractional two-valued bias
    ],
    ids=["-inf", "finfo-min", "linear-bias", "fractional"],
)
def test_masks_and_biases_that_are_no_integers_one_apart(mask: torch.Tensor) -> None:
    assert codes(mask[:, None, None, :]) == []
