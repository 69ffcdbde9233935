"""A causal mask that also forbids the diagonal is found at its ``diagonal`` argument (AM303).

``triu(ones, diagonal=0)`` filled with a penalty hides each token from itself (the first row has
no allowed key: NaN with -inf, a uniform row with a finite penalty).  Where the triangle points
the right way and only its diagonal is off, the finding goes to the ``diagonal`` argument, the
thing to change (TransformerLensOrg/TransformerLens#284); a penalty held in a 0-dim tensor
(``register_buffer("IGNORE", torch.tensor(-1e5))``) fills as the number does.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

LAYER = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("IGNORE", torch.tensor(-1e5))

    def forward(self, scores):
        mask = torch.triu(
            torch.ones(scores.size(-2), scores.size(-1)),
            diagonal={diagonal},
        ).bool()
        scores.masked_fill_(mask, {fill})
        return scores.softmax(-1)
"""


@pytest.mark.parametrize("fill", ["self.IGNORE", "-1e5", 'float("-inf")'])
def test_a_future_mask_that_hides_the_diagonal_is_found_there(fill: str) -> None:
    found = check_source(LAYER.format(diagonal=0, fill=fill))
    assert [(f.line, f.code) for f in found] == [(13, "AM303")]
    assert check_source(LAYER.format(diagonal=1, fill=fill)) == []


def test_the_claim_on_torch() -> None:
    scores = torch.zeros(3, 3)
    forbidden = torch.triu(torch.ones(3, 3), diagonal=0).bool()
    assert scores.masked_fill(forbidden, float("-inf")).softmax(-1)[0].isnan().all()
    weights = scores.masked_fill(forbidden, -1e5).softmax(-1)
    assert torch.allclose(weights[0], torch.full((3,), 1 / 3))  # the first row: uniform


@pytest.mark.parametrize(
    ("call", "line"),
    [("torch.triu(torch.ones(4, 4), 0).bool()", 5), ("torch.ones(4, 4).triu(0).bool()", 5)],
)
def test_a_positional_diagonal_is_found_too(call: str, line: int) -> None:
    source = f"import torch\n\n\ndef f(scores):\n    mask = {call}\n"
    source += "    return scores.masked_fill(mask, float('-inf')).softmax(-1)\n"
    found = check_source(source)
    assert [(f.line, f.code) for f in found] == [(line, "AM303")]
    column = source.splitlines()[line - 1].index("0)") + 1
    assert found[0].column == column


INDICES = """import torch


def self_attention(x):
    _b, t, k = x.size()
    dot = torch.bmm(x, x.transpose(1, 2)) / k ** 0.5  # (b, t, t)
    {indices}
    {fill}
    return torch.softmax(dot, dim=2)
"""


@pytest.mark.parametrize(
    ("indices", "fill"),
    [
        (
            "indices = torch.triu_indices(t, t, offset=0)",
            'dot[:, indices[0], indices[1]] = float("-inf")',
        ),
        ("rows, cols = torch.triu_indices(t, t, 0)", 'dot[..., rows, cols] = float("-inf")'),
        ("rows, cols = torch.tril_indices(t, t, 0)", 'dot[:, cols, rows] = float("-inf")'),
    ],
    ids=["subscripted", "unpacked", "transposed"],
)
def test_a_future_mask_from_triangle_indices_is_found_at_its_offset(
    indices: str, fill: str
) -> None:
    found = check_source(INDICES.format(indices=indices, fill=fill))
    assert [(f.line, f.code) for f in found] == [(7, "AM303")]
    right = indices.replace("offset=0", "offset=1").replace(", 0)", ", 1)")
    if "tril" in right:
        right = indices.replace(", 0)", ", -1)")
    assert check_source(INDICES.format(indices=right, fill=fill)) == []


def test_the_indices_claim_on_torch() -> None:
    dot = torch.zeros(1, 3, 3)
    rows, cols = torch.triu_indices(3, 3, offset=0)
    dot[:, rows, cols] = float("-inf")
    assert torch.softmax(dot, dim=2)[0, 0].isnan().all()
    rows, cols = torch.triu_indices(3, 3, offset=1)
    dot = torch.zeros(1, 3, 3)
    dot[:, rows, cols] = float("-inf")
    assert torch.softmax(dot, dim=2).isfinite().all()
