"""A per-position mask on hidden states is no attention mask: ``m[..., None]`` is right there.

Masked pooling fills the padded positions of hidden states ``[B, T, E]`` before a max or a
sum, and the mask's new last axis lies along the features, as it should.  Only where the
filled tensor is known to be scores (``q @ kᵀ``) or a bias built for them does a padding
mask moved off the key axis say anything (AM601).
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\ndef pool(q, k, x, ids, pad_id):\n    real = ids != pad_id\n"


def codes(body: str) -> list[str]:
    return [finding.code for finding in check_source(_HEAD + body, "case.py")]


@pytest.mark.parametrize(
    "body",
    [
        "    return x.masked_fill(~real[..., None], float('-inf')).amax(1)\n",
        "    return x.masked_fill(~real.unsqueeze(-1), 0.0).sum(1)\n",
    ],
)
def test_hidden_states_pooled(body: str) -> None:
    assert codes(body) == []


def test_scores_masked_along_the_queries() -> None:
    body = "    s = q @ k.transpose(-2, -1)\n"
    body += "    return s.masked_fill(~real[..., None], float('-inf')).softmax(-1)\n"
    assert codes(body) == ["AM601"]


def test_a_bias_built_along_the_queries() -> None:
    body = "    bias = torch.zeros(x.size(0), x.size(1), 1).masked_fill(~real[..., None], -1e9)\n"
    body += "    return (q @ k.transpose(-2, -1) + bias).softmax(-1)\n"
    assert codes(body) == ["AM601"]
