"""Scores shifted by their own maximum stay the scores a softmax reads.

A hand-written stable softmax subtracts the row maximum first (``s - s.max(-1,
keepdim=True)[0]``, ``.values``, ``s.amax(-1, keepdim=True)``, ``torch.max(s)``,
``s.logsumexp(-1, keepdim=True)``, detached or not): softmax(s - c) is softmax(s), and the
checks of the softmax that follows (its axis, the mask, the scale) still apply.  Something else
subtracted (another tensor, a penalty) is not such a shift.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_CASE = (
    "import torch\n\n\n"
    "def attend(q, k, v, other):\n"
    "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
    "    s = s - {shift}\n"
    "    return s.softmax(dim=-2) @ v\n"
)


def codes(shift: str) -> list[str]:
    return [finding.code for finding in check_source(_CASE.format(shift=shift), "case.py")]


@pytest.mark.parametrize(
    "shift",
    [
        "s.max(dim=-1, keepdim=True)[0]",
        "s.max(dim=-1, keepdim=True).values",
        "s.max(-1, keepdim=True)[0].detach()",
        "s.amax(dim=-1, keepdim=True)",
        "torch.max(s, dim=-1, keepdim=True).values",
        "torch.amax(s, -1, keepdim=True)",
        "s.max()",
        "s.logsumexp(-1, keepdim=True)",
    ],
)
def test_a_shift_by_the_scores_own_maximum(shift: str) -> None:
    assert codes(shift) == ["AM402"]


@pytest.mark.parametrize(
    "shift",
    ["other.max(dim=-1, keepdim=True)[0]", "other", "s.min(dim=-1, keepdim=True)[0]", "s.mean()"],
)
def test_something_else_subtracted(shift: str) -> None:
    assert codes(shift) == []
