"""Masked scores set to 0 by ``torch.where`` or an index, and penalties subtracted.

``torch.where(allowed, scores, 0.0)`` and ``scores[~allowed] = 0`` leave a masked key the
weight of a zero score (AM203, as ``masked_fill(~allowed, 0.0)`` does); ``scores - 1e9 * m`` is
the additive mask ``m * -1e9`` and is read like one, its polarity included (AM102 when ``m`` is
1 on the real tokens).
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\n"
_SCORES = "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
_READ = "    return torch.softmax(s, dim=-1) @ v\n"


def findings(body: str) -> list[tuple[int, str]]:
    source = _HEAD + "def attend(q, k, v, ids, pad):\n    real = ids != pad\n" + _SCORES + body
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "fill",
    [
        "    s = torch.where(real[:, None, None, :], s, 0.0)\n",
        "    s = torch.where(real[:, None, None, :], s, torch.zeros_like(s))\n",
        "    s = torch.where(real[:, None, None, :], s, s.new_zeros(()))\n",
        "    s = torch.where(~real[:, None, None, :], -1.0, s)\n",
        "    s[~real[:, None, None, :].expand_as(s)] = 0\n",
        "    s[(ids == pad)[:, None, None, :].expand_as(s)] = 0.0\n",
    ],
)
def test_masked_scores_set_to_a_number_near_zero(fill: str) -> None:
    assert findings(fill + _READ) == [(7, "AM203")]


@pytest.mark.parametrize(
    "fill",
    [
        "    s = torch.where(real[:, None, None, :], s, float('-inf'))\n",
        "    s = torch.where(real[:, None, None, :], s, torch.finfo(s.dtype).min)\n",
        "    s[~real[:, None, None, :].expand_as(s)] = float('-inf')\n",
        "    s[:, 0] = 0.0\n",  # a column, not a mask
        "    s[0] = 0.0\n",  # one batch item, not a mask
        "    s = torch.where(s > 0, s, 0.0)\n",  # a threshold, not a mask
    ],
)
def test_no_weak_fill(fill: str) -> None:
    assert findings(fill + _READ) == []


def test_a_weak_fill_no_softmax_reads() -> None:
    assert findings("    return torch.where(real[:, None, None, :], s, 0.0)\n") == []


@pytest.mark.parametrize(
    ("subtracted", "expected"),
    [
        ("1e9 * (1 - real[:, None, None, :].float())", []),
        ("(1 - real[:, None, None, :].float()) * 1e9", []),
        ("1e9 * real[:, None, None, :].float()", [(7, "AM102")]),
        ("(~real[:, None, None, :]).float() * torch.finfo(s.dtype).max", []),
        ("real[:, None, None, :].float() * torch.finfo(s.dtype).max", [(7, "AM102")]),
    ],
)
def test_a_penalty_subtracted(subtracted: str, expected: list[tuple[int, str]]) -> None:
    assert findings(f"    s = s - {subtracted}\n" + _READ) == expected


@pytest.mark.parametrize(
    "subtracted",
    [
        "s.amax(-1, keepdim=True)",  # a stable softmax's shift
        "10.0 * real[:, None, None, :].float()",  # too small to be a penalty
        "bias",
    ],
)
def test_no_penalty_subtracted(subtracted: str) -> None:
    assert findings(f"    s = s - {subtracted}\n" + _READ) == []


def test_a_subtracted_penalty_reaches_the_softcap_rule() -> None:
    body = (
        "    s = s - 1e9 * (1 - real[:, None, None, :].float())\n"
        "    s = 50.0 * torch.tanh(s / 50.0)\n" + _READ
    )
    assert findings(body) == [(8, "AM403")]


@pytest.mark.parametrize(
    ("cast", "expected"), [("float()", []), ("double()", []), ("half()", [(8, "AM202")])]
)
def test_a_penalty_keeps_the_dtype_the_mask_was_cast_to(
    cast: str, expected: list[tuple[int, str]]
) -> None:
    # s.half() + a float32 tensor is float32, where -1e9 fits; a float16 penalty is -inf
    body = f"    s = s.half()\n    s = s - 1e9 * (1 - real[:, None, None, :].{cast})\n" + _READ
    assert findings(body) == expected


@pytest.mark.parametrize(
    "reset",
    [
        "    s = torch.where(real[:, None, :, None], s, 0.0)\n",
        "    s = s.masked_fill(~real[:, None, :, None], 0.0)\n",
        "    s[~real[:, None, :, None].expand_as(s)] = 0.0\n",
    ],
)
def test_a_row_reset_after_the_keys_are_masked(reset: str) -> None:
    # padded queries get a uniform row instead of NaN; the keys already carry -inf
    body = "    s = s.masked_fill(~real[:, None, None, :], float('-inf'))\n" + reset + _READ
    assert findings(body) == []


@pytest.mark.parametrize(
    "weak",
    [
        "    s = torch.where(real[:, None, None, :], s, torch.zeros_like(s))\n",
        "    s = s.masked_fill(~real[:, None, None, :], 0.0)\n",
    ],
)
def test_a_weak_fill_replaced_by_a_penalty(weak: str) -> None:
    body = weak + "    s = s.masked_fill(~real[:, None, None, :], float('-inf'))\n" + _READ
    assert findings(body) == []


@pytest.mark.parametrize("index", ["s > 50.0", "s != s", "s < 0"])
def test_a_clip_or_a_clean_up_is_no_mask(index: str) -> None:
    value = "50.0" if ">" in index else "0.0"
    assert findings(f"    s[{index}] = {value}\n" + _READ) == []


@pytest.mark.parametrize(
    "weak",
    ["    s = torch.where(m, s, 0.0)\n", "    s = s * m\n", "    s = s.masked_fill(~m, 0.0)\n"],
)
@pytest.mark.parametrize("again", ["    w = w * m\n", "    w = w.masked_fill(~m, 0.0)\n"])
def test_weights_masked_again_and_renormalised(weak: str, again: str) -> None:
    # AllenNLP's masked_softmax: the weak fill's weights are zeroed and the rows renormalised
    body = (
        "    m = real[:, None, None, :]\n"
        + weak
        + "    w = torch.softmax(s, dim=-1)\n"
        + again
        + "    w = w / (w.sum(dim=-1, keepdim=True) + 1e-13)\n    return w @ v\n"
    )
    assert findings(body) == []


_PRODUCT = """import torch


def attend(scores, mask):
    # mask: 1 = real token, 0 = padding
    paddings = {fill}
    scores = torch.where({condition}, {branches})
    return torch.softmax(scores, dim=-1)
"""


def product(fill: str, condition: str, branches: str = "paddings, scores") -> list:
    source = _PRODUCT.format(fill=fill, condition=condition, branches=branches)
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("condition", "branches"),
    [
        ("mask == 0", "paddings, scores"),
        ("torch.eq(mask, 0)", "paddings, scores"),
        ("mask.eq(0)", "paddings, scores"),
        ("~mask.bool()", "paddings, scores"),
        ("mask != 0", "scores, paddings"),
        ("mask.bool()", "scores, paddings"),
    ],
)
def test_a_penalty_times_the_mask_is_zero_where_it_is_put(condition: str, branches: str) -> None:
    """``paddings = mask * -1e8`` is 0 exactly where ``mask == 0`` picks it (the finding is
    on the product, where the fix goes: 30stomercury/Interaction-Aware-Attention-Network#1)."""
    assert product("mask * (-2**32 + 1)", condition, branches) == [(6, "AM203")]
    assert product("mask.float() * torch.finfo(scores.dtype).min", condition, branches) == [
        (6, "AM203")
    ]


@pytest.mark.parametrize(
    ("fill", "condition", "branches"),
    [
        ("torch.ones_like(mask) * (-2**32 + 1)", "mask == 0", "paddings, scores"),
        ("(1 - mask) * -1e9", "mask == 0", "paddings, scores"),
        ("mask * -1e9", "mask != 0", "paddings, scores"),  # put where mask is not 0
        ("mask * -1e9", "mask == 1", "paddings, scores"),
        ("mask * 0.5", "mask == 0", "paddings, scores"),  # no penalty meant
    ],
)
def test_no_zero_product_fill(fill: str, condition: str, branches: str) -> None:
    assert product(fill, condition, branches) == []


def test_a_zero_product_fill_no_softmax_reads() -> None:
    source = "import torch\n\n\ndef pick(x, m):\n    return torch.where(m == 0, m * -1e9, x)\n"
    assert check_source(source, "case.py") == []


@pytest.mark.parametrize(
    ("branches", "expected"),
    [
        ("s, torch.full_like(s, torch.finfo(s.dtype).min)", [(7, "AM101")]),  # keeps the padding
        ("torch.full_like(s, float('-inf')), s", []),  # -inf where padding: right
        ("torch.full_like(s, -1.0), s", [(7, "AM203")]),  # too weak
    ],
)
def test_a_fill_tensor_of_one_constant_is_that_constant(
    branches: str, expected: list[tuple[int, str]]
) -> None:
    """``torch.where(pad, s, torch.full_like(s, finfo.min))`` keeps the scores where the keys
    are padding, as ``torch.where(pad, s, finfo.min)`` does."""
    body = f"    s = torch.where((ids == pad)[:, None, None, :], {branches})\n"
    assert findings(body + _READ) == expected


def param_findings(body: str) -> list[tuple[int, str]]:
    """The mask is a parameter: nothing says its convention, the weak fill is wrong either way."""
    source = _HEAD + "def attend(q, k, v, mask, scale):\n" + _SCORES + body + _READ
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "fill",
    [
        "    s = torch.where(mask, s, 0.0)\n",
        "    s = torch.where(mask.bool(), s, torch.zeros_like(s))\n",
        "    s = torch.where(mask[:, None, None, :], s, torch.full_like(s, 1e-9))\n",
        "    s = s * mask\n",  # 0 where the mask is 0 (or False), not -inf
        "    s = mask * s\n",
    ],
)
def test_a_mask_parameter_picks_a_weak_fill(fill: str) -> None:
    assert param_findings(fill) == [(6, "AM203")]


@pytest.mark.parametrize(
    "fill",
    [
        "    s = torch.where(mask, s, float('-inf'))\n",
        "    s = torch.where(s.isnan(), 0.0, s)\n",  # a guard
        "    s = torch.where(s > s.mean(), s, 0.0)\n",  # a threshold
        "    s = s * scale\n",  # a scale, not a mask
        "    mask = torch.randn(3)\n    s = s * mask\n",  # made here: no 0/1 mask
    ],
)
def test_no_weak_fill_from_a_parameter(fill: str) -> None:
    assert param_findings(fill) == []


def test_the_claim_on_torch_for_a_product() -> None:
    """Scores times a 0/1 mask: the masked key's score is 0, and it keeps a weight."""
    import torch

    scores = torch.tensor([[2.0, 1.0, 3.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    weights = torch.softmax(scores * mask, dim=-1)
    assert round(weights[0, 2].item(), 2) == 0.09


@pytest.mark.parametrize("name", ["attention_mask", "key_padding_mask"])
def test_a_mask_known_by_its_name_multiplied_in(name: str) -> None:
    """1 = token or True = padding, a product leaves the masked scores at 0 (a warning)."""
    body = f"    s = s * {name}[:, None, None, :]\n"
    source = _HEAD + f"def attend(q, k, v, {name}):\n" + _SCORES + body + _READ
    assert [(f.line, f.code) for f in check_source(source, "case.py")] == [(6, "AM203")]


_AFTER = """import math
import torch
import torch.nn.functional as F


def attend(q, k, v, causal, seq_mask, L):
    causal = torch.tril(torch.ones(L, L)).view(1, 1, L, L)
    w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(q.size(-1))
    keep = {keep}
    w = F.softmax(w, dim=-1)
    w = w * keep
    return torch.matmul(w, v)
"""


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        ("causal * seq_mask[:, None, None, :]", [(11, "AM401")]),  # 0 on the future at least
        ("seq_mask[:, None, None, :].float() * causal", [(11, "AM401")]),
        ("causal * bias", []),  # not named a mask: a bias's values, nothing known
    ],
)
def test_a_known_mask_times_a_mask_parameter_after_the_softmax(keep: str, expected: list) -> None:
    """The product is 0 wherever the triangle is: the weights lose the future and no longer
    sum to 1 (AM401), whatever the parameter holds."""
    source = _AFTER.format(keep=keep).replace("causal, seq_mask, L", "causal, seq_mask, bias, L")
    assert [(f.line, f.code) for f in check_source(source, "case.py")] == expected


_LOOKALIKES = {
    # a Keras port: the penalty is added beside the product (same weights as masked_fill(-inf))
    "tf_port": "    s = s * mask + (1.0 - mask) * -10000.0\n",
    # AllenNLP's masked_softmax inlined: softmax(s * m), then * m and renormalised
    "allennlp": "    w = torch.softmax(s * mask, dim=-1)\n    w = w * mask\n"
    "    w = w / (w.sum(dim=-1, keepdim=True) + 1e-13)\n    return w @ v\n",
    # an additive mask already in the scores: zeroing padded query rows is a guard, not a fill
    "row_guard": "    s = s + attn_bias\n    s = torch.where(valid, s, 0.0)\n",
    # a comparison with 1 added as a bonus: that it is a mask at all is a guess
    "bonus": "    s = s + (dist == 1).float()\n",
}


@pytest.mark.parametrize("body", _LOOKALIKES.values(), ids=_LOOKALIKES.keys())
def test_lookalikes_of_the_weak_fills_read_from_names(body: str) -> None:
    source = _HEAD + "def attend(q, k, v, mask, attn_bias, valid, dist):\n" + _SCORES + body
    if "return" not in body:
        source += _READ
    assert check_source(source, "case.py") == []
