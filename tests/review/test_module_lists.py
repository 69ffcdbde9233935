"""Attention modules kept in an ``nn.ModuleList`` are checked where they are called.

``for attn in self.layers`` and ``self.layers[i]`` give the module the list was built of (a
comprehension's element, or a list whose elements are all that module), so a mask tiled with
``repeat`` for an ``nn.MultiheadAttention`` in a loop of layers is found as it is for one
attribute (CLIP4Clip's cross model, ArrowLuo/CLIP4Clip#22).  A list of other blocks, or of
modules of different kinds, gives nothing to follow.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

MODEL = """import torch
from torch import nn


class Blocks(nn.Module):
    def __init__(self, width, heads, layers):
        super().__init__()
        self.n_head = heads
        self.layers = {layers}

    def forward(self, x, ids, pad_id):
        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)
        {call}
        return x
"""

LOOP = "for attn in self.layers:\n            x = x + attn(x, x, x, attn_mask={mask})[0]"
INDEX = "x = x + self.layers[0](x, x, x, attn_mask={mask})[0]"
COMPREHENSION = "nn.ModuleList(nn.MultiheadAttention(width, heads) for _ in range(layers))"
DISPLAY = (
    "nn.ModuleList([nn.MultiheadAttention(width, heads), nn.MultiheadAttention(width, heads)])"
)
TILED = "padding.repeat(self.n_head, 1, 1)"
INTERLEAVED = "padding.repeat_interleave(self.n_head, dim=0)"


def codes(layers: str, call: str, mask: str) -> list[tuple[int, str]]:
    source = MODEL.format(layers=layers, call=call.format(mask=mask))
    return [(finding.line, finding.code) for finding in check_source(source)]


@pytest.mark.parametrize("layers", [COMPREHENSION, DISPLAY], ids=["comprehension", "list"])
@pytest.mark.parametrize("call", [LOOP, INDEX], ids=["loop", "index"])
def test_a_mask_tiled_for_a_listed_module_is_found(layers: str, call: str) -> None:
    found = codes(layers, call, TILED)
    assert [code for _, code in found] == ["AM802"]
    assert codes(layers, call, INTERLEAVED) == []


@pytest.mark.parametrize(
    "layers",
    [
        "nn.ModuleList(Block(width, heads) for _ in range(layers))",
        "nn.ModuleList([nn.MultiheadAttention(width, heads), nn.TransformerEncoderLayer(width, heads)])",
        "nn.ModuleList([nn.MultiheadAttention(width, heads), nn.MultiheadAttention(width, heads, batch_first=True)])",
    ],
    ids=["other-blocks", "two-kinds", "two-layouts"],
)
def test_a_list_of_anything_else_gives_nothing_to_follow(layers: str) -> None:
    assert codes(layers, LOOP, TILED) == []
