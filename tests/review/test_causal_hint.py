"""AM306: ``is_causal=True`` on ``nn.MultiheadAttention`` / ``nn.Transformer*`` is a hint, not a switch.

Without its mask the call raises (or, on the inference fast path, drops the hint); beside a mask
that is not causal, and with no padding mask, the module drops the mask and applies a causal
triangle (``nn.MultiheadAttention`` only with ``need_weights=False``, which the layers pass).
The checker reports the second only where the mask is shown not to be causal: penalties set in
whole key columns of a zeros tensor (pytorch/pytorch#131254), or a padding mask.  A mask it
cannot read, a causal mask, a padding mask beside it, or MHA's default ``need_weights=True``
give nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from attention.review.check import check_source

CASE = Path(__file__).parent / "bugs" / "development" / "is_causal_misuse__pytorch_pytorch_131254"
"""The corpus case: ``encoder.forward(inputs, src_mask=mask, is_causal=True)``, last key padded."""

HEAD = "import torch\nfrom torch import nn\n\n"
LAYER = "layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, batch_first=True)\n"
MHA = "mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)\n"
PADDED = (
    "def padded(L):\n"
    "    mask = torch.zeros(L, L)  # additive\n"
    "    mask[:, -1] = float('-inf')\n"
    "    return mask\n\n\n"
)


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


def test_the_corpus_case_is_found_and_its_fix_is_not() -> None:
    bug = CASE.with_name(CASE.name + "_bug.py").read_text(encoding="utf-8")
    fix = CASE.with_name(CASE.name + "_fix.py").read_text(encoding="utf-8")
    assert codes(bug) == [(19, "AM306")]  # `encoder.forward(...)` is read as `encoder(...)`
    assert codes(fix) == []


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("layer(x, src_mask=padded(x.size(1)), is_causal=True)", ["AM306"]),
        ("layer(x, padded(x.size(1)), None, True)", ["AM306"]),  # positional
        ("layer(x, is_causal=True)", ["AM306"]),  # no mask: raises, or ignored on the fast path
        ("layer(x, src_mask=None, is_causal=True)", ["AM306"]),
        ("layer(x, is_causal=True, **options)", []),  # the mask may be in **options
        ("layer(x, src_mask=padded(x.size(1)))", []),
        ("layer(x, src_mask=padded(x.size(1)), is_causal=False)", []),
        # with a padding mask the hint is ignored and the mask applied
        ("layer(x, src_mask=padded(x.size(1)), src_key_padding_mask=pad, is_causal=True)", []),
        # the causal mask itself, and a mask the checker cannot read
        (
            "layer(x, src_mask=nn.Transformer.generate_square_subsequent_mask(x.size(1)), "
            "is_causal=True)",
            [],
        ),
        ("layer(x, src_mask=options['mask'], is_causal=True)", []),
        ("layer.forward(x, is_causal=True)", ["AM306"]),
    ],
)
def test_encoder_layer(call: str, expected: list[str]) -> None:
    source = HEAD + LAYER + "\n\n" + PADDED + f"def f(x, pad, options):\n    return {call}\n"
    assert [code for _, code in codes(source)] == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            "mha(x, x, x, attn_mask=padded(x.size(1)), need_weights=False, is_causal=True)",
            ["AM306"],
        ),
        # need_weights=True (the default) applies the mask and ignores the hint
        ("mha(x, x, x, attn_mask=padded(x.size(1)), is_causal=True)", []),
        ("mha(x, x, x, attn_mask=padded(x.size(1)), need_weights=True, is_causal=True)", []),
        ("mha(x, x, x, is_causal=True)", ["AM306"]),
    ],
)
def test_multihead_attention(call: str, expected: list[str]) -> None:
    source = HEAD + MHA + "\n\n" + PADDED + f"def f(x):\n    return {call}\n"
    assert [code for _, code in codes(source)] == expected


@pytest.mark.parametrize(
    ("fill", "expected"),
    [
        ("mask[:, -1] = float('-inf')", ["AM306"]),
        ("mask[..., -2:] = float('-inf')", ["AM306"]),
        ("mask[:, :, 0] = -1e9", ["AM306"]),
        ("mask[-1, :] = float('-inf')", []),  # a query row: not shown to be anything
        ("mask[:, -1] = 1.0", []),  # no penalty (a 0/1 float mask: AM201's)
        ("mask[:, j] = float('-inf')", []),  # a column the checker cannot read
    ],
)
def test_which_fills_forbid_whole_key_columns(fill: str, expected: list[str]) -> None:
    source = (
        HEAD
        + LAYER
        + f"\n\ndef f(x, j):\n    mask = torch.zeros(4, 4)\n    {fill}\n"
        + "    return layer(x, src_mask=mask, is_causal=True)\n"
    )
    assert [code for _, code in codes(source) if code == "AM306"] == expected


def test_decoder_hints_name_their_own_masks() -> None:
    source = (
        HEAD
        + "layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, batch_first=True)\n\n\n"
        + "def f(x, memory, causal):\n"
        + "    a = layer(x, memory, tgt_mask=causal, tgt_is_causal=True)\n"
        + "    return layer(a, memory, tgt_mask=causal, memory_is_causal=True)\n"
    )
    found = check_source(source, "case.py")
    assert [(finding.line, finding.code) for finding in found] == [(9, "AM306")]
    assert "memory_mask" in found[0].expects


def test_what_the_rule_claims_is_what_torch_does() -> None:
    """Beside a mask that forbids the last key, the hint gives the causal output instead."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(4, 1, 16, dropout=0.0, batch_first=True)
    x = torch.randn(2, 5, 4)
    mask = torch.zeros(5, 5)
    mask[:, -1] = float("-inf")
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with torch.no_grad():
        hinted = layer(x, src_mask=mask, is_causal=True)
        assert torch.allclose(hinted, layer(x, src_mask=causal))
        assert not torch.allclose(hinted, layer(x, src_mask=mask))
    with pytest.raises(RuntimeError, match="is_causal"):
        layer(x, is_causal=True)
