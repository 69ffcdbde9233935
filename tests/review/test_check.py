"""The pass itself: names resolved through imports, flex_attention's mask_mod, the prefilter."""

from __future__ import annotations

import pytest

from attention.review.check import check_source, could_hold_finding

BODY = """
def attend(q, k, v, ids, pad_id):
    padding = ids == pad_id
    return {call}(q, k, v, attn_mask=padding[:, None, None, :])
"""


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("import torch.nn.functional as F", "F.scaled_dot_product_attention"),
        ("import torch", "torch.nn.functional.scaled_dot_product_attention"),
        ("from torch import nn", "nn.functional.scaled_dot_product_attention"),
        ("from torch.nn import functional as fn", "fn.scaled_dot_product_attention"),
        ("from torch.nn.functional import scaled_dot_product_attention as sdpa", "sdpa"),
    ],
)
def test_every_spelling_of_sdpa_resolves(imports: str, call: str) -> None:
    source = imports + "\n" + BODY.format(call=call)
    assert [f.code for f in check_source(source)] == ["AM101"]


def test_a_local_function_of_the_same_name_is_not_sdpa() -> None:
    source = "def scaled_dot_product_attention(*a, **k): ...\n" + BODY.format(
        call="scaled_dot_product_attention"
    )
    assert check_source(source) == []


FLEX = """
from torch.nn.attention.flex_attention import create_block_mask


def {name}(b, h, q_idx, kv_idx):
    return {expr}


block = create_block_mask({name}, 1, 1, 128, 128)
"""


@pytest.mark.parametrize(
    ("expr", "codes"),
    [
        ("q_idx >= kv_idx", []),
        ("kv_idx <= q_idx", []),
        ("q_idx < kv_idx", ["AM101"]),
        ("kv_idx > q_idx", ["AM101"]),
        ("q_idx > kv_idx", ["AM303"]),
        ("q_idx <= kv_idx", ["AM303"]),
    ],
)
def test_flex_attention_mask_mod_is_read_as_allowed(expr: str, codes: list[str]) -> None:
    source = FLEX.format(name="causal", expr=expr)
    assert [f.code for f in check_source(source)] == codes


def test_flex_attention_lambda() -> None:
    source = (
        "from torch.nn.attention.flex_attention import create_block_mask\n"
        "block = create_block_mask(lambda b, h, q, kv: q < kv, 1, 1, 8, 8)\n"
    )
    assert [f.code for f in check_source(source)] == ["AM101"]


def test_files_that_name_no_watched_api_are_parsed_but_not_interpreted() -> None:
    assert not could_hold_finding("import torch\nx = torch.ones(3)\n")
    # a syntax error is reported wherever it is, at the line CPython reports
    with pytest.raises(SyntaxError) as error:
        check_source("x = 1\nthis is not python (\n")
    assert error.value.lineno == 2


def test_a_file_that_names_one_is_parsed() -> None:
    assert could_hold_finding("y = torch.softmax(x, -1)\n")


def test_generate_square_subsequent_mask_is_additive_and_right_for_mha() -> None:
    source = (
        "from torch import nn\n"
        "layer = nn.TransformerEncoderLayer(16, 2, batch_first=True)\n"
        "def run(x):\n"
        "    causal = nn.Transformer.generate_square_subsequent_mask(x.size(1))\n"
        "    return layer(x, src_mask=causal, is_causal=True)\n"
    )
    assert check_source(source) == []


def test_its_boolean_form_is_forbidden_and_wrong_for_sdpa() -> None:
    source = (
        "import torch.nn.functional as F\nfrom torch import nn\n"
        "def run(q, k, v):\n"
        "    causal = nn.Transformer.generate_square_subsequent_mask(q.size(-2)).bool()\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=causal)\n"
    )
    assert [f.code for f in check_source(source)] == ["AM101"]


def test_conventions_functions_are_sources_with_known_conventions() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "from attention.conventions import allowed_to_forbidden, forbidden_to_allowed\n"
        "def run(q, k, v, mask):\n"
        "    forbidden = allowed_to_forbidden(mask)\n"
        "    ok = F.scaled_dot_product_attention(q, k, v, attn_mask=forbidden_to_allowed(forbidden))\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=forbidden)\n"
    )
    assert [(f.line, f.code) for f in check_source(source)] == [(6, "AM101")]


BRANCHES = """
import torch.nn.functional as F
from torch import nn

mha = nn.MultiheadAttention(16, 2, batch_first=True)


def attend(x, q, k, v, ids, pad_id, fused):
    mask = ids == pad_id
    if fused:
        mask = ~mask
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
    else:
        return mha(x, x, x, key_padding_mask=mask)[0]
"""


def test_a_mask_flipped_on_one_branch_is_not_flipped_on_the_other() -> None:
    assert check_source(BRANCHES) == []


AFTER = """
from torch import nn

mha = nn.MultiheadAttention(16, 2, batch_first=True)


def attend(x, ids, pad_id, fused):
    mask = ids == pad_id
    if fused:
        mask = {branch}
    return mha(x, x, x, key_padding_mask={passed})[0]
"""


@pytest.mark.parametrize(
    ("branch", "passed", "codes"),
    [
        ("~mask", "mask", []),  # flipped on one path only: unknown afterwards
        ("mask.clone()", "mask", []),  # forbidden on every path: right
        ("mask.clone()", "~mask", ["AM102"]),  # allowed on every path: wrong
    ],
)
def test_after_the_branches_a_name_keeps_only_what_they_share(branch, passed, codes) -> None:
    source = AFTER.format(branch=branch, passed=passed)
    assert [f.code for f in check_source(source)] == codes
