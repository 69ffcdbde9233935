"""Two names that disagree on a mask's meaning: neither is evidence.

A mask whose meaning comes from a name (``attention_mask``: 1 = real token) and is assigned to
a name that states the other meaning (``remove_from_windowed_attention_mask``) has no known
meaning any more: Longformer's layer receives a mask whose 0 marks local attention, and names
what it builds from it for what it does.  A meaning the code shows (``ids != pad``) is kept
whatever the name it is assigned to.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\nimport torch.nn.functional as F\n\n\ndef attend(q, k, v, attention_mask, padding_mask, ids, pad):\n"
_SCORES = "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"


def codes(body: str) -> list[str]:
    return [finding.code for finding in check_source(_HEAD + _SCORES + body, "case.py")]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("remove_from_windowed_attention_mask", []),
        ("ignored", []),
        ("m", ["AM105"]),  # states nothing: the parameter's name stands
        ("keep", ["AM105"]),  # agrees with it
    ],
)
def test_a_name_given_to_a_mask_from_a_name(name: str, expected: list[str]) -> None:
    body = f"    {name} = (attention_mask != 0)[:, None, None, :]\n"
    body += f"    scores = scores.masked_fill({name}, torch.finfo(scores.dtype).min)\n"
    body += "    return scores.softmax(dim=-1) @ v\n"
    assert codes(body) == expected


@pytest.mark.parametrize(("name", "expected"), [("keep", []), ("m", ["AM105"])])
def test_a_padding_mask_renamed(name: str, expected: list[str]) -> None:
    body = f"    {name} = padding_mask[:, None, None, :]\n"
    body += f"    return F.scaled_dot_product_attention(q, k, v, attn_mask={name})\n"
    assert codes(body) == expected


def test_a_meaning_the_code_shows_stays() -> None:
    body = "    removed = (ids != pad)[:, None, None, :]\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~removed)\n"
    assert codes(body) == ["AM101"]


_MHA = "import torch\nfrom torch import nn\n\n\ndef attend(x, attention_mask):\n"
_MHA += "    mha = nn.MultiheadAttention(8, 2, batch_first=True)\n"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("disallowed", []),  # a negated allowed word says forbidden
        ("invisible", []),
        ("not_valid", []),
        ("padding", ["AM103"]),  # the mistake itself: a tokenizer's mask called padding
        ("key_padding_mask", ["AM103"]),
        ("block_mask", ["AM103"]),  # a block is a chunk, no meaning
    ],
)
def test_the_words_of_a_name(name: str, expected: list[str]) -> None:
    body = _MHA + f"    {name} = attention_mask.bool()\n"
    body += f"    return mha(x, x, x, key_padding_mask={name})[0]\n"
    assert [finding.code for finding in check_source(body, "case.py")] == expected


def test_an_attribute_named_for_its_meaning() -> None:
    body = "import torch\n\n\nclass Layer:\n    def forward(self, scores, attention_mask):\n"
    body += "        self.remove = (attention_mask != 0)[:, None, None, :]\n"
    body += "        scores = scores.masked_fill(self.remove, torch.finfo(scores.dtype).min)\n"
    body += "        return scores.softmax(dim=-1)\n"
    assert check_source(body, "case.py") == []
    kept = body.replace("self.remove", "self.cached")
    assert [finding.code for finding in check_source(kept, "case.py")] == ["AM105"]


_HELPER = """import torch
from torch import nn


def lengths_to_padding_mask(lengths, max_len):
    \"\"\"For src_key_padding_mask: True marks padded frames.\"\"\"
    return torch.arange(max_len)[None, :] {op} lengths[:, None]


class Encoder(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)

    def forward(self, x, lengths):
        padding_mask = lengths_to_padding_mask(lengths, x.size(1))
        return self.encoder(x, src_key_padding_mask=padding_mask)
"""


@pytest.mark.parametrize(("op", "expected"), [("<", ["AM102"]), (">=", [])])
def test_a_helper_named_for_a_mask_is_read_for_what_it_returns(
    op: str, expected: list[str]
) -> None:
    """The helper's name is no mask: what it returns is the comparison its code makes."""
    found = check_source(_HELPER.format(op=op), "case.py")
    assert [finding.code for finding in found] == expected
