"""A fill that overflows float16 written as an index assignment or with torch.where (AM202).

``X[~mask] = -1e6`` (d2l's ``masked_softmax``) and ``torch.where(mask, scores, -1e9)`` convert
the number to the tensor's dtype exactly as ``masked_fill`` does: -inf in float16 (run on torch
2.13, both give ``-inf`` silently, where ``masked_fill`` raises).
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

D2L = """import torch  # the model trains with --fp16


def masked_softmax(X, valid_lens):
    mask = torch.arange(X.shape[-1])[None, :] < valid_lens[:, None]
    X[~mask] = {value}
    return torch.softmax(X, dim=-1)
"""

WHERE = """import torch  # the model trains with --fp16


def attend(q, k, keep):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    scores = torch.where(keep, scores, {value})
    return torch.softmax(scores, dim=-1)
"""


@pytest.mark.parametrize("template", [D2L, WHERE], ids=["index", "where"])
def test_a_fill_past_float16_is_flagged(template: str) -> None:
    found = check_source(template.format(value="-1e6"))
    assert [(f.line, f.code) for f in found] == [(6, "AM202")]


@pytest.mark.parametrize("template", [D2L, WHERE], ids=["index", "where"])
@pytest.mark.parametrize("value", ["-1e4", "torch.finfo(X.dtype).min", 'float("-inf")'])
def test_a_fill_that_fits_is_not(template: str, value: str) -> None:
    assert check_source(template.format(value=value)) == []


def test_the_claim_on_torch() -> None:
    x = torch.zeros(3, dtype=torch.float16)
    allowed = torch.tensor([True, False, True])
    x[~allowed] = -1e6
    assert torch.isneginf(x[1])
    assert torch.isneginf(torch.where(allowed, torch.zeros(3, dtype=torch.float16), -1e9)[1])


@pytest.mark.parametrize(
    "line",
    [
        "bias = torch.where(keep > 0, 0.0, -1e10)",  # two numbers: float32, -1e10 fits
        "anchors = torch.where(keep, scores, torch.inf)",  # inf is no overflow
    ],
)
def test_where_of_numbers_or_infinity_is_not(line: str) -> None:
    source = WHERE.replace("    scores = torch.where(keep, scores, {value})\n", f"    {line}\n")
    assert check_source(source) == []
