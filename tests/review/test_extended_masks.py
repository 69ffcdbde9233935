"""A layer's ``attention_mask`` is what its module made additive, not the tokenizer's 1/0 mask.

Hugging Face models turn the tokenizer's mask into an additive one once, in the model's forward
(``(1.0 - attention_mask) * finfo.min``, LayoutLMv2's shape), and hand it down an encoder and its
layers to a self-attention whose parameter keeps the name.  ``masked_fill_(attention_mask.to(
torch.bool), finfo.min)`` there fills the padding (the extended mask is nonzero only there), so a
finding from the name (AM104) is false.  The function that converts still reads its own
parameter by its name, and a module that converts nothing keeps the finding.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

_LAYERS = """import torch
from torch import nn


class SelfAttention(nn.Module):
    def forward(self, scores, attention_mask=None):
        scores = scores.float().masked_fill_(
            attention_mask.to(torch.bool), torch.finfo(scores.dtype).min
        )
        return nn.functional.softmax(scores, dim=-1)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = SelfAttention()

    def forward(self, scores, attention_mask=None):
        return self.attention(scores, attention_mask)


class Encoder(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layer = nn.ModuleList([Layer() for _ in range(n)])

    def forward(self, scores, attention_mask=None):
        for layer in self.layer:
            scores = layer(scores, attention_mask)
        return scores
"""

_MODEL = """

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder(2)

    def forward(self, scores, attention_mask):
        extended_attention_mask = attention_mask[:, None, None, :].to(scores.dtype)
        extended_attention_mask = (1.0 - extended_attention_mask) * torch.finfo(scores.dtype).min
        return self.encoder(scores, extended_attention_mask)
"""


def codes(source: str) -> list[tuple[str, int]]:
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


def test_the_model_hands_its_layers_an_additive_mask() -> None:
    assert codes(_LAYERS + _MODEL) == []


def test_what_the_layers_compute_with_it() -> None:
    """Run: the padded key gets weight 0, the real keys share the row."""
    namespace: dict[str, object] = {}
    exec(compile(_LAYERS + _MODEL, "case.py", "exec"), namespace)
    model = namespace["Model"]()  # type: ignore[operator]
    weights = model(torch.zeros(1, 1, 1, 3), torch.tensor([[1, 1, 0]]))
    assert weights.flatten().tolist() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize(
    "other",
    [
        "",  # the module converts nothing: the name is all there is
        "\n\ndef unrelated(attention_mask):\n    return (2.0 - attention_mask) * -1e4\n",
    ],
)
def test_a_module_that_converts_nothing_keeps_the_finding(other: str) -> None:
    assert codes(_LAYERS + other) == [("AM104", 8)]


@pytest.mark.parametrize(
    "conversion",
    [
        "(1.0 - attention_mask[:, None, None, :]) * -10000.0",
        "self.get_extended_attention_mask(attention_mask, scores.shape)",
    ],
)
def test_other_ways_to_convert(conversion: str) -> None:
    model = _MODEL.replace(
        "(1.0 - extended_attention_mask) * torch.finfo(scores.dtype).min", conversion
    )
    assert codes(_LAYERS + model) == []


_OWN = """

def forward(scores, attention_mask):
    bias = (1.0 - attention_mask) * -10000.0
    scores = scores.masked_fill(attention_mask.bool(), -1e4)
    return (scores + bias).softmax(-1)
"""


def test_the_converting_function_reads_its_own_parameter_by_its_name() -> None:
    """Where the conversion is written, ``attention_mask`` is still the tokenizer's mask."""
    assert codes(_LAYERS + _OWN) == [("AM104", 35)]  # the masked_fill line; SelfAttention's is gone
