"""AM305 where the keys' length counts a cache joined in front of them on some path.

``torch.ones(q.size(-2), k.size(-2)).tril()`` after ``k = torch.cat((past_k, k), dim=-2)``: on
the cached path L < S, and a triangle laid from the top left lets query i see keys 0..i only
(tinygrad/tinygrad#15949).  A diagonal of S - L, a length not read from cached keys, or queries
joined the same way give nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention.review.check import check_source

CASE = Path(__file__).parent / "bugs" / "development" / "causal_alignment__tinygrad_tinygrad_15949"


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


def test_the_corpus_case_is_found_and_its_fix_is_not() -> None:
    bug = CASE.with_name(CASE.name + "_bug.py").read_text(encoding="utf-8")
    fix = CASE.with_name(CASE.name + "_fix.py").read_text(encoding="utf-8")
    assert codes(bug) == [(19, "AM305")]
    assert codes(fix) == []


@pytest.mark.parametrize(
    ("cache", "triangle", "expected"),
    [
        (
            "k = torch.cat((past, k), dim=-2)",
            "torch.ones(L, S, dtype=torch.bool).tril()",
            ["AM305"],
        ),
        (
            "k = torch.cat([past, k], dim=2)",
            "torch.ones(L, S, dtype=torch.bool).tril(0)",
            ["AM305"],
        ),
        # forbidden convention: the future above the first diagonal
        (
            "k = torch.cat((past, k), dim=-2)",
            "~torch.ones(L, S, dtype=torch.bool).triu(1)",
            ["AM305"],
        ),
        ("k = torch.cat((past, k), dim=-2)", "torch.ones(L, S, dtype=torch.bool).tril(S - L)", []),
        ("pass", "torch.ones(L, S, dtype=torch.bool).tril()", []),
        (
            "k = torch.cat((past, k), dim=-2)\n        q = torch.cat((past, q), dim=-2)",
            "torch.ones(L, S, dtype=torch.bool).tril()",
            [],
        ),
    ],
)
def test_a_triangle_on_cached_keys(cache: str, triangle: str, expected: list[str]) -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "def attend(q, k, v, past=None):\n"
        "    if past is not None:\n"
        f"        {cache}\n"
        "    L, S = q.size(-2), k.size(-2)\n"
        f"    allowed = {triangle}\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n"
    )
    assert [code for _, code in codes(source)] == expected


_NANO = """import math
import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        ones = torch.ones(block_size, block_size)
        self.register_buffer("bias", torch.tril(ones).view(1, 1, block_size, block_size))

    def forward(self, x, layer_past=None):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        if layer_past is not None:
            k = torch.cat((layer_past[0], k), dim=-2)
        S = k.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, {rows}, :S] == 0, float("-inf"))
        return att.softmax(dim=-1)
"""


@pytest.mark.parametrize(
    ("rows", "expected"),
    [(":T", [(21, "AM305")]), ("S - T:S", [])],
)
def test_a_triangle_buffer_cut_from_its_top_left_corner(
    rows: str, expected: list[tuple[int, str]]
) -> None:
    """nanoGPT's ``bias[:, :, :T, :S]`` with a cache: query i sees keys 0..i of S."""
    found = check_source(_NANO.format(rows=rows), "case.py")
    assert [(f.line, f.code) for f in found] == expected


_MEMORY = """import torch
from torch import nn


def causal_attn_mask(tgt_len, src_len):
    return torch.triu(torch.full((tgt_len, src_len), float("-inf")), diagonal={diagonal})


class MemoryLayer(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)

    def forward(self, x, mems):
        cat = torch.cat([mems, x], dim={axis})
        attn_mask = causal_attn_mask(x.size(1), cat.size(1))
        return self.attn(x, cat, cat, attn_mask=attn_mask)[0]
"""


@pytest.mark.parametrize(
    ("diagonal", "axis", "expected"),
    [
        ("1", "1", [(6, "AM305")]),
        ("1 + src_len - tgt_len", "1", []),  # bottom-right
        ("1", "0", []),  # joined along the batch (or a sequence-first length): nothing shown
    ],
)
def test_memory_joined_along_the_positions_of_hidden_states(
    diagonal: str, axis: str, expected: list[tuple[int, str]]
) -> None:
    """Transformer-XL's ``torch.cat([mems, x], dim=1)``: ``cat.size(1)`` counts the memory
    too, and the helper given it lays the triangle top-left."""
    found = check_source(_MEMORY.format(diagonal=diagonal, axis=axis), "case.py")
    assert [(f.line, f.code) for f in found] == expected
