"""AW219: a 3-D ``attn_mask`` of ``nn.MultiheadAttention`` tiled for the heads head by head.

The module reads entry ``b·H + h`` as item b's head h (``repeat_interleave``); per-item masks
tiled with ``repeat(H, 1, 1)`` sit at ``h·B + b``.  The watch reports it where the values
prove it: an item's heads differ read as the module reads them, and agree read head by head.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from attention.review import watch

B, H, L, E = 3, 2, 4, 4
PAD = torch.tensor(
    [[False, False, True, True], [False, True, True, True], [False, False, False, True]]
)  # [B, S], True = masked out
PER_ITEM = PAD[:, None, :].expand(B, L, L)  # [B, L, S]


def codes(mask: torch.Tensor, *, heads: int = H) -> list[str]:
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(E, heads, batch_first=True)
    x = torch.randn(B, L, E)
    with warnings.catch_warnings(record=True), watch() as seen:
        mha(x, x, x, attn_mask=mask)
    assert seen.errors == []
    return [finding.code for finding in seen.findings]


def test_per_item_masks_tiled_head_by_head() -> None:
    assert codes(PER_ITEM.repeat(H, 1, 1)) == ["AW219"]


def test_an_additive_mask_tiled_head_by_head() -> None:
    additive = torch.zeros(B, L, L).masked_fill(PER_ITEM, float("-inf"))
    assert codes(additive.repeat(H, 1, 1)) == ["AW219"]


@pytest.mark.parametrize(
    "mask",
    [
        PER_ITEM.repeat_interleave(H, dim=0),  # item by item: right
        PER_ITEM[:1].expand(B * H, L, L),  # one mask for every item: both orders agree
        torch.ones(L, L, dtype=torch.bool).triu(1).expand(B * H, L, L),  # causal, shared
    ],
    ids=["repeat_interleave", "shared", "causal"],
)
def test_masks_read_in_the_modules_order_are_right(mask: torch.Tensor) -> None:
    assert codes(mask) == []


def test_masks_that_differ_per_head_on_purpose_are_left_alone() -> None:
    per_head = torch.zeros(B * H, L, L, dtype=torch.bool)
    per_head[0::2, :, -1] = True  # head 0 of every item hides the last key
    per_head[1, :, 0] = True  # one head of item 0 hides the first key too
    assert codes(per_head) == []


def test_one_head_cannot_be_tiled_wrong() -> None:
    assert codes(PER_ITEM.repeat(1, 1, 1), heads=1) == []
