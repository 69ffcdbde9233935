"""A softmax written out, ``e = exp(s - max); e / e.sum(dim, keepdim=True)``, is checked as one.

The shift may be the scores' own max, amax or logsumexp, kept by ``[0]`` / ``.values`` /
``.detach()`` and by ``torch.maximum`` / ``clamp`` with a floor (iree#24447's running max); the
division by the numerator's own sum over one axis is the softmax along that axis: its axis
(AM402), a row the mask leaves with no key (AM603) and a mask applied to its weights (AM401)
are read as for ``torch.softmax``.  A sum over every axis, or by another tensor's sum, is no
softmax.  (As any file, one is read only if it shows a mask or a softmax call: here the scores
are masked first.)
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\ndef attend(q, k, v, ids, pad, other):\n"
_SCORES = (
    "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
    "    s = s.masked_fill((ids == pad)[:, None, :], float('-inf'))\n"
)


def codes(body: str) -> list[str]:
    return [finding.code for finding in check_source(_HEAD + body, "case.py")]


@pytest.mark.parametrize(
    "numerator",
    [
        "(s - s.amax(dim=-1, keepdim=True)).exp()",
        "torch.exp(s - s.max(-1, keepdim=True)[0])",
        "torch.exp(s - s.max(-1, keepdim=True).values.detach())",
        "torch.exp(s - torch.maximum(s.amax(-1, keepdim=True), torch.tensor(-1e30)))",
        "s.exp()",
    ],
)
def test_its_axis(numerator: str) -> None:
    body = _SCORES + f"    e = {numerator}\n    return (e / e.sum(dim=-2, keepdim=True)) @ v\n"
    assert codes(body) == ["AM402"]
    assert codes(body.replace("dim=-2", "dim=-1")) == []


@pytest.mark.parametrize(
    "denominator",
    [
        "e.sum()",
        "other.sum(-2, keepdim=True)",
        "e.mean(-2, keepdim=True)",
        "f.sum(-2, keepdim=True)",
    ],
)
def test_no_softmax(denominator: str) -> None:
    body = _SCORES + f"    e, f = s.exp(), (2 * s).exp()\n    return (e / {denominator}) @ v\n"
    assert codes(body) == []


def test_a_row_with_no_allowed_key() -> None:
    body = (
        "    m = torch.ones(2, 3, 3, dtype=torch.bool)\n"
        "    m[1, 0] = False\n" + _SCORES + "    s = s.masked_fill(~m, float('-inf'))\n"
        "    p = (s - torch.maximum(s.amax(-1, keepdim=True), torch.tensor(-3e38))).exp()\n"
        "    return (p / p.sum(-1, keepdim=True)) @ v\n"
    )
    assert codes(body) == ["AM603"]
    # divided by the sum of every entry, the empty row is 0 / total = 0, not NaN
    assert codes(body.replace("p.sum(-1, keepdim=True)", "p.sum()")) == []


def test_a_mask_after_it() -> None:
    body = (
        "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
        "    e = s.exp()\n"
        "    w = e / e.sum(-1, keepdim=True)\n"
        "    attn_mask = (ids != pad)[:, None, :]\n"
        "    return (w * attn_mask) @ v\n"
    )
    assert codes(body) == ["AM401"]
    # the scores were masked before: the product only guards rows already masked
    assert codes(_SCORES + body.split("\n", 1)[1]) == []
