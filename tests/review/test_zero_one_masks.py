"""A 0/1 mask set in a loop is a 0/1 mask after it, whether or not the loop ran.

``torch.zeros(n, n)`` with ones set block by block in a ``for`` loop (one block per graph, as in
leffff/graphormer-pyg#14) holds only zeros and ones on every path, so scores multiplied by it
before a softmax are filled with 0, not -inf (AM203).  A tensor that was not all zeros or ones
to begin with (``torch.randn``) is no 0/1 mask after ones are set in it.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

HEAD = """import torch


def attend(query, key, ptr):
    batch_mask = torch.{made}((query.shape[0], query.shape[0]))
    for i in range(len(ptr) - 1):
        batch_mask[ptr[i] : ptr[i + 1], ptr[i] : ptr[i + 1]] = 1
    scores = query @ key.transpose(0, 1) / query.size(-1) ** 0.5
    {use}
    return torch.softmax(scores, dim=-1)
"""

WRONG = "scores = scores * batch_mask"
RIGHT = 'scores = scores.masked_fill(batch_mask == 0, float("-inf"))'


def codes(made: str, use: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(HEAD.format(made=made, use=use))]


@pytest.mark.parametrize("made", ["zeros", "ones"])
def test_scores_times_a_mask_set_in_a_loop_is_a_weak_fill(made: str) -> None:
    assert codes(made, WRONG) == [(9, "AM203")]
    assert codes(made, RIGHT) == []


def test_a_tensor_not_made_of_zeros_and_ones_is_no_mask() -> None:
    assert codes("randn", WRONG) == []


def test_the_claim_on_torch() -> None:
    scores = torch.tensor([[2.0, 1.0, 3.0]])
    batch_mask = torch.zeros(1, 3)
    batch_mask[:, :2] = 1  # the third key belongs to another graph
    weights = torch.softmax(scores * batch_mask, dim=-1)
    assert weights[0, 2] > 0.05  # a zero score, not -inf: the other graph's node keeps 9 %


@pytest.mark.parametrize(
    "changed",
    [
        'batch_mask[:, -1] = float("-inf")',
        'batch_mask.fill_(float("-inf"))',
        "batch_mask.add_(query.sum())",
        "batch_mask[0] = 2",
    ],
)
def test_a_tensor_changed_to_other_numbers_is_no_longer_zeros_and_ones(changed: str) -> None:
    # on the path where the loop does not run it holds -inf or 2: the product is no 0/1 fill
    source = HEAD.format(made="zeros", use=WRONG).replace(
        "    for i in range", f"    {changed}\n    for i in range"
    )
    assert [f.code for f in check_source(source)] == []
