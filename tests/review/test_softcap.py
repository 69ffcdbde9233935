"""A tanh softcap of scores that already carry a mask's penalty (AM403).

``cap * tanh(s / cap)`` maps -inf, or any large negative fill, to -cap: a finite score, so a
forbidden key keeps a weight (onnx#7867, the reference Attention capped the biased scores).
Capping first and masking after is right (Gemma 2's order); so is a cap of scores that carry
no penalty, or one that no softmax reads.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\nimport torch.nn.functional as F\n\n\n"
_SCORES = "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"


def findings(body: str, helpers: str = "") -> list[tuple[int, str]]:
    source = _HEAD + helpers + "def attend(q, k, v, allowed, cap):\n" + _SCORES + body
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


_READ = "    return torch.softmax(s, dim=-1) @ v\n"


@pytest.mark.parametrize(
    "penalty",
    [
        "    s = s.masked_fill(~allowed, float('-inf'))\n",
        "    s = s.masked_fill(~allowed, torch.finfo(s.dtype).min)\n",
        "    s = torch.where(allowed, s, float('-inf'))\n",
        "    s = s + torch.zeros(allowed.shape).masked_fill(~allowed, float('-inf'))\n",
        "    s = s + (~allowed).float() * -1e9\n",
        "    s[~allowed] = float('-inf')\n",
    ],
)
@pytest.mark.parametrize(
    "squash",
    [
        "    s = cap * torch.tanh(s / cap)\n",
        "    s = torch.tanh(s / cap) * cap\n",
        "    s = (s / cap).tanh() * cap\n",
        "    s = F.tanh(s)\n",
    ],
)
def test_a_penalty_squashed_by_a_softcap(penalty: str, squash: str) -> None:
    assert findings(penalty + squash + _READ) == [(8, "AM403")]


@pytest.mark.parametrize(
    "penalty",
    [
        "    s = s.masked_fill(~allowed, float('-inf'))\n",
        "    s = torch.where(allowed, s, float('-inf'))\n",
        "    s = s + (~allowed).float() * -1e9\n",
    ],
)
def test_capped_first_then_masked(penalty: str) -> None:
    assert findings("    s = cap * torch.tanh(s / cap)\n" + penalty + _READ) == []


@pytest.mark.parametrize(
    "before",
    [
        "    s = s.masked_fill(~allowed, 0.0)\n",  # a zero fill is AM203's, not a penalty
        "    s = s + position_bias\n",  # a bias of unknown values: no penalty shown
        "",
    ],
)
def test_no_penalty_to_squash(before: str) -> None:
    body = before + "    s = cap * torch.tanh(s / cap)\n" + _READ
    assert [code for _, code in findings(body)] in ([], ["AM203"])


def test_no_softmax_reads_the_capped_scores() -> None:
    body = "    s = s.masked_fill(~allowed, float('-inf'))\n    return cap * torch.tanh(s / cap)\n"
    assert findings(body) == []


_SOFTCAP = (
    "def softcap(x, cap):\n"
    "    if cap > 0:\n"
    "        x = torch.tanh(x / cap) * cap\n"
    "    return x\n\n\n"
)


def test_a_helper_handed_penalised_scores_is_reported_where_it_is_called() -> None:
    body = "    s = s.masked_fill(~allowed, float('-inf'))\n    s = softcap(s, cap)\n" + _READ
    found = check_source(
        _HEAD + _SOFTCAP + "def attend(q, k, v, allowed, cap):\n" + _SCORES + body, "case.py"
    )
    assert [(finding.line, finding.code) for finding in found] == [(14, "AM403")]
    assert "in `softcap` (line 7: `torch.tanh(x / cap)`)" in found[0].expects


def test_a_helper_handed_raw_scores() -> None:
    body = "    s = softcap(s, cap)\n    s = s.masked_fill(~allowed, float('-inf'))\n" + _READ
    assert findings(body, _SOFTCAP) == []


def test_a_helper_that_masks_and_caps_is_reported_inside_it() -> None:
    helper = (
        "def masked_softcap(s, allowed, cap):\n"
        "    s = s.masked_fill(~allowed, float('-inf'))\n"
        "    return torch.tanh(s / cap) * cap\n\n\n"
    )
    body = "    s = masked_softcap(s, allowed, cap)\n" + _READ
    assert findings(body, helper) == [(7, "AM403")]


@pytest.mark.parametrize(
    "after",
    [
        "",
        # the same condition masks again after the cap: right on both paths
        "    if allowed is not None:\n        s = s.masked_fill(~allowed, float('-inf'))\n",
    ],
)
def test_a_penalty_on_one_path_only_is_not_followed(after: str) -> None:
    # which paths a later mask takes again is not known: silent rather than a guess
    body = (
        "    if allowed is not None:\n"
        "        s = s.masked_fill(~allowed, float('-inf'))\n"
        "    s = cap * torch.tanh(s / cap)\n" + after + _READ
    )
    assert findings(body) == []


@pytest.mark.parametrize(
    "scores",
    [
        "(q * scale) @ (k.transpose(-2, -1) * scale)",
        "q @ (k.transpose(-2, -1) / q.size(-1) ** 0.5)",
        "torch.matmul(q, k.transpose(-2, -1) * scale)",
    ],
)
def test_a_key_scaled_after_its_transpose_still_gives_scores(scores: str) -> None:
    source = (
        _HEAD + "def attend(q, k, v, allowed, num_heads):\n"
        "    scale = q.size(-1) ** -0.5\n"
        f"    s = {scores}\n"
        "    s = s.masked_fill(~allowed, float('-inf'))\n"
        "    return torch.softmax(torch.tanh(s), dim=-1) @ v\n"
    )
    assert [(f.line, f.code) for f in check_source(source, "case.py")] == [(9, "AM403")]


def test_a_key_scaled_after_its_transpose_is_scaled() -> None:
    source = (
        _HEAD + "def attend(q, k, v, num_heads):\n"
        "    s = q @ (k.transpose(-2, -1) / q.size(-1) ** 0.5)  # [B, H, L, S]\n"
        "    return torch.softmax(s, dim=-1) @ v\n"
    )
    assert check_source(source, "case.py") == []
    unscaled = source.replace(" / q.size(-1) ** 0.5", "")
    assert [f.code for f in check_source(unscaled, "case.py")] == ["AM501"]


def test_a_zero_set_into_the_scores_is_no_penalty() -> None:
    body = "    s[~allowed] = 0.0\n    s = cap * torch.tanh(s / cap)\n" + _READ
    assert "AM403" not in [code for _, code in findings(body)]


@pytest.mark.parametrize(
    "again",
    [
        "    s = s.masked_fill(~allowed, float('-inf'))\n",
        "    s = torch.where(allowed, s, float('-inf'))\n",
        "    s = s + (~allowed).float() * -1e9\n",
        "    s[~allowed] = float('-inf')\n",
    ],
)
def test_the_penalty_put_back_after_the_softcap(again: str) -> None:
    body = (
        "    s = s.masked_fill(~allowed, float('-inf'))\n"
        "    s = cap * torch.tanh(s / cap)\n" + again + _READ
    )
    assert findings(body) == []
