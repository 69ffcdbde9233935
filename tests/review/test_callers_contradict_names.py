"""A finding from a parameter's name is dropped where every caller in the module says otherwise.

``attention_mask == 0`` reads a parameter named like the tokenizer's 1/0 mask as True =
padding (AM105 at SDPA).  Where every call of the helper in the module passes a mask the caller
knows, and the helper read again with it makes no such finding (Hugging Face's float mask,
0 = allowed, compared ``== 0``: transformers#38094's fix), the name is contradicted and the
finding goes.  It stays where a call passes what agrees with the name or nothing known.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HELPER = """import torch
import torch.nn.functional as F


def causal_float_mask(n, dtype):
    mask = torch.full((n, n), torch.finfo(dtype).min, dtype=dtype)
    return torch.triu(mask, diagonal=1)[None, None]  # 0 = allowed


def sdpa_forward(query, key, value, attention_mask):
    if attention_mask is not None:
        attention_mask = attention_mask == 0
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)
"""


def codes(callers: str) -> list[tuple[str, int]]:
    source = _HELPER + callers
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


_FLOAT = """

def run(q, k, v):
    return sdpa_forward(q, k, v, causal_float_mask(4, torch.float32))
"""


def test_every_caller_passes_a_float_mask() -> None:
    assert codes(_FLOAT) == []


def test_never_called_here() -> None:
    assert codes("") == [("AM105", 13)]


def test_a_caller_passes_a_tokenizer_mask() -> None:
    """A 1/0 integer tensor is what the name says: the finding stays."""
    ints = "\n\ndef run(q, k, v):\n    m = torch.tensor([[1, 1, 0]])\n"
    ints += "    return sdpa_forward(q, k, v, m)\n"
    assert codes(ints) == [("AM105", 13)]


def test_another_caller_passes_what_the_pass_does_not_know() -> None:
    other = _FLOAT + "\n\ndef other(q, k, v, mask):\n    return sdpa_forward(q, k, v, mask)\n"
    assert codes(other) == [("AM105", 13)]


def test_a_caller_whose_mask_makes_it_wrong() -> None:
    """A 1/0 mask the caller builds (1 = real token): the helper's `== 0` is then padding."""
    known = "\n\ndef run(q, k, v, ids, pad):\n"
    known += "    return sdpa_forward(q, k, v, (ids != pad).long()[:, None, None, :])\n"
    assert [code for code, _ in codes(known)] == ["AM101"]


def test_the_known_mask_goes_to_another_parameter() -> None:
    """Read again, the helper makes the finding once more: the name was not contradicted."""
    two = """

def scores_forward(query, key, value, bias, attention_mask):
    attention_mask = attention_mask == 0
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)
    return out + bias


def run(q, k, v, mask):
    return scores_forward(q, k, v, causal_float_mask(4, torch.float32), mask)
"""
    assert codes(two) == [("AM105", 13), ("AM105", 18)]  # 13: sdpa_forward, never called


_DECODER = """import torch
from torch import nn


class Decoder(nn.Module):
    def forward(self, q, k, v, attention_mask):
        bias = attention_mask[:, None, None, :].to(q.dtype) * torch.finfo(q.dtype).min
        scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + bias
        return scores.softmax(dim=-1) @ v
"""


def layer_codes(model: str) -> list[tuple[str, int]]:
    source = _DECODER + model
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


_MODEL = """

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder()

    def forward(self, q, k, v, text_mask):
        return self.decoder(q, k, v, attention_mask=~text_mask)
"""


def test_a_layer_whose_only_caller_inverts_the_mask() -> None:
    """grounding_dino's decoder: the model passes ``~text_token_mask``, True = padding."""
    assert layer_codes("") == [("AM104", 7)]
    assert layer_codes(_MODEL) == []


@pytest.mark.parametrize(
    "change",
    [
        ("attention_mask=~text_mask", "attention_mask=text_mask"),  # passed as it is
        (
            "        self.decoder = Decoder()\n",
            "        self.decoder = Decoder()\n        self.other = Decoder()\n",
        ),
        ("self.decoder = Decoder()", "self.decoder = nn.ModuleList([Decoder()])[0]"),
    ],
)
def test_a_layer_whose_calls_are_not_all_known(change: tuple[str, str]) -> None:
    assert layer_codes(_MODEL.replace(*change)) == [("AM104", 7)]


def test_a_caller_whose_mask_says_nothing_of_its_meaning() -> None:
    """A Boolean mask of no known meaning neither confirms nor contradicts the name."""
    unknown = "\n\ndef run(q, k, v, n_tokens):\n"
    unknown += "    m = torch.arange(4)[None, :] < n_tokens[:, None]\n"
    unknown += "    return sdpa_forward(q, k, v, m[:, None, None, :])\n"
    assert codes(unknown) == [("AM105", 13)]


@pytest.mark.parametrize(
    "escape",
    [
        "\n\ndef later(q, k, v, mask):\n    step = sdpa_forward\n    return step(q, k, v, mask)\n",
        "\n\ndef later(q, k, v, mask):\n    return torch.utils.checkpoint.checkpoint("
        "sdpa_forward, q, k, v, mask)\n",
    ],
)
def test_a_helper_handed_on_is_called_where_it_is_not_seen(escape: str) -> None:
    assert codes(_FLOAT + escape) == [("AM105", 13)]


@pytest.mark.parametrize(
    "subclass",
    [
        "\n\nclass Wider(Decoder):\n    pass\n",
        "\n\nclass Wider(nn.Module):\n    def forward(self, q, k, v, mask):\n"
        "        return super().forward(q, k, v, mask)\n",
    ],
)
def test_a_layer_reached_from_a_subclass(subclass: str) -> None:
    assert layer_codes(_MODEL + subclass) == [("AM104", 7)]


def test_methods_of_one_name_in_two_classes() -> None:
    """Each class's own `self._attend(...)` calls are its method's calls."""
    two = _DECODER.replace(
        "def forward(self, q, k, v, attention_mask):", "def _attend(self, q, k, v, attention_mask):"
    )
    two += """

    def forward(self, q, k, v, text_mask):
        return self._attend(q, k, v, ~text_mask)


class Other(nn.Module):
    def _attend(self, q, k, v, mask):
        return q

    def forward(self, q, k, v, mask):
        return self._attend(q, k, v, mask)
"""
    assert [(f.code, f.line) for f in check_source(two, "case.py")] == []


def test_a_layer_whose_other_members_are_used() -> None:
    """`self.decoder.layers`: a use of the instance, not a call the pass cannot see."""
    used = _MODEL.replace(
        "        return self.decoder(",
        "        depth = self.decoder.training\n        return self.decoder(",
    )
    assert layer_codes(used) == []


_STACK = """import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x, attention_mask):
        return self.attn(x, x, x, key_padding_mask=attention_mask)[0]


class Model(nn.Module):
    def __init__(self, dim, heads, depth, pad_id):
        super().__init__()
        self.pad_id = pad_id
        self.layers = nn.ModuleList([Layer(dim, heads) for _ in range(depth)])

    def forward(self, x, ids):
        pad = ids == self.pad_id
{loop}        return x
"""


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        ("        for layer in self.layers:\n            x = layer(x, pad)\n", []),
        ("        x = self.layers[0](x, pad)\n", []),
        # the layers read with a mask the code shows True = padding: right for MHA
        ("        for layer in self.layers:\n            x = layer(x, ~pad)\n", [("AM102", 23)]),
        # handed on: where else it is called is not seen
        (
            "        for layer in self.layers:\n"
            "            x = torch.utils.checkpoint.checkpoint(layer, x, pad)\n",
            [("AM103", 11)],
        ),
        (
            "        for i, layer in enumerate(self.layers):\n            x = layer(x, pad)\n",
            [("AM103", 11)],
        ),
        # one call read, another place the pass does not follow: the name stands
        (
            "        for layer in self.layers:\n            x = layer(x, pad)\n"
            "            x = torch.utils.checkpoint.checkpoint(layer, x, ids)\n",
            [("AM103", 11)],
        ),
        (
            "        for layer in self.layers:\n            x = layer(x, pad)\n"
            "        for i, layer in enumerate(self.layers):\n            x = layer(x, ids)\n",
            [("AM103", 11)],
        ),
    ],
)
def test_layers_in_a_module_list(loop: str, expected: list[tuple[str, int]]) -> None:
    source = _STACK.format(loop=loop)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected
