"""Findings that rest on what the code shows, whatever the tensors are called.

A fill is judged by its value once a softmax reads what it gives, whether or not the tensor is
named like scores; nothing is said of a fill no softmax reads.  Weights normalised by a softmax
and then multiplied by a Boolean comparison that varies along the keys no longer sum to 1.  A
token mask given one axis per position is the mask its name says.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\n"


def codes(source: str) -> list[tuple[str, int]]:
    return [(finding.code, finding.line) for finding in check_source(_HEAD + source, "case.py")]


@pytest.mark.parametrize("name", ["scores", "x", "h"])
def test_a_fill_float16_cannot_hold_is_found_whatever_the_tensor_is_called(name: str) -> None:
    source = f"def f({name}, m):\n    return {name}.half().masked_fill(m, -1e9).softmax(-1)\n"
    assert codes(source) == [("AM202", 5)]


def test_the_same_fill_no_softmax_reads_is_no_attention_finding() -> None:
    assert codes("def f(x, m):\n    return x.half().masked_fill(m, -1e9).amax(-1)\n") == []


def test_a_constant_set_by_index_is_judged_only_where_a_softmax_reads_it() -> None:
    pooled = (
        "def f(areas, mask):\n"
        "    INF = 100000000\n"
        "    areas[mask == 0] = INF\n"
        "    return areas.min(dim=1)\n"
        "\n\n"
        "def classify(logits):  # trained with --fp16\n"
        "    return torch.softmax(logits, dim=-1)\n"
    )
    assert codes(pooled) == []
    read = pooled.replace("areas.min(dim=1)", "torch.softmax(areas, dim=-1)")
    assert codes(read) == [("AM202", 6)]


@pytest.mark.parametrize("condition", ["m", "m == 0", "~keep"])
def test_a_weak_fill_before_a_softmax_is_found_whatever_made_the_tensor(condition: str) -> None:
    source = (
        f"def f(x, m, keep):\n    y = x.masked_fill({condition}, 1e-9)\n    return y.softmax(-1)\n"
    )
    assert codes(source) == [("AM203", 5)]


def test_a_fill_of_whole_rows_is_no_weak_mask_of_keys() -> None:
    source = "def f(x, pad):\n    return x.masked_fill(pad.unsqueeze(-1), 0.0).softmax(-1)\n"
    assert codes(source) == []


_WEIGHTS = (
    "def f(q, k, ids):\n"
    "    pad = ids != 0\n"
    "    w = torch.softmax(q @ k.transpose(-1, -2) / 8, dim=-1)\n"
    "    w = w * {mask}\n"
)


@pytest.mark.parametrize("mask", ["pad[:, None, :]", "pad.unsqueeze(1)", "pad.float()[:, None, :]"])
def test_weights_zeroed_along_the_keys_after_the_softmax(mask: str) -> None:
    assert codes(_WEIGHTS.format(mask=mask) + "    return w\n") == [("AM401", 7)]


def test_weights_zeroed_and_renormalised_are_right() -> None:
    source = _WEIGHTS.format(mask="pad[:, None, :]") + (
        "    w = w / w.sum(-1, keepdim=True)\n    return w\n"
    )
    assert codes(source) == []


def test_weights_of_padded_queries_zeroed_whole_are_right() -> None:
    assert codes(_WEIGHTS.format(mask="pad.unsqueeze(-1)") + "    return w\n") == []


def test_a_token_mask_given_an_axis_per_position_keeps_its_meaning() -> None:
    pooler = (
        "class MaxPooler(torch.nn.Module):\n"
        "    def forward(self, x, attention_mask):\n"
        "        masked = x.last_hidden_state.masked_fill(attention_mask.unsqueeze(-1), -torch.inf)\n"
        "        return masked.max(1).values\n"
    )
    assert codes(pooler) == [("AM104", 6)]


def test_a_mask_named_attention_mask_in_an_attention_layer_may_be_anything() -> None:
    layer = (
        "class Attention(torch.nn.Module):\n"
        "    def forward(self, q, k, attention_mask=None):\n"
        "        s = q @ k.transpose(-1, -2)\n"
        "        if attention_mask is not None:\n"
        "            s = s.masked_fill(attention_mask, torch.finfo(s.dtype).min)\n"
        "        return s.softmax(-1)\n"
    )
    assert codes(layer) == []
