"""A per-position mask put on both the query and the key axis leaves padded queries no key (AM602).

``m[:, None, :, None] & m[:, None, None, :]`` is True only where both the query and the key
are real: a padded query's row is False on every key, and filled with -inf a plain softmax of
it is 0/0, NaN (mlx-vlm#1006, Gemma 4's vision attention).  The row is empty only where the
data has padding, so this is a warning, reported where the mask is built (what needs changing)
and released by a NaN guard after the softmax or after the attention.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\n\n\n"
_SCORES = "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
_READ = "    return torch.softmax(s, dim=-1) @ v\n"


def findings(body: str) -> list[tuple[int, str]]:
    source = _HEAD + "def attend(q, k, v, valid):\n" + _SCORES + body
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "pair",
    [
        "valid[:, None, :, None] & valid[:, None, None, :]",
        "valid[:, None, None, :] & valid[:, None, :, None]",
        "valid[..., :, None] & valid[..., None, :]",
        "valid.unsqueeze(-1) & valid.unsqueeze(-2)",
        # of a [B, N] mask: [B, N, 1] & [B, 1, N], the higher new axis the query axis
        "valid.unsqueeze(2) & valid.unsqueeze(1)",
        "valid.unsqueeze(1) & valid.unsqueeze(2)",
    ],
)
@pytest.mark.parametrize(
    "fill",
    [
        "    s = s.masked_fill(~pair, float('-inf'))\n",
        "    s = torch.where(pair, s, float('-inf'))\n",
        "    s = s + torch.zeros(pair.shape).masked_fill(~pair, float('-inf'))\n",
        "    s = s + torch.where(pair, 0.0, float('-inf'))\n",
    ],
)
def test_a_pairwise_mask_leaves_padded_queries_no_key(pair: str, fill: str) -> None:
    assert findings(f"    pair = {pair}\n" + fill + _READ) == [(6, "AM602")]


@pytest.mark.parametrize(
    "fill",
    [
        "    s = s.masked_fill(pad, float('-inf'))\n",
        "    s = torch.where(~pad, s, float('-inf'))\n",
    ],
)
def test_a_pairwise_padding_mask_joined_with_or(fill: str) -> None:
    body = "    pad = ~valid[:, :, None] | ~valid[:, None, :]\n" + fill + _READ
    assert findings(body) == [(6, "AM602")]


def test_a_product_of_a_boolean_mask() -> None:
    body = (
        "    real = valid != pad_id\n"
        "    pair = real.unsqueeze(-1) * real.unsqueeze(-2)\n"
        "    s = s.masked_fill(pair == 0, float('-inf'))\n" + _READ
    )
    assert findings(body) == [(7, "AM602")]


@pytest.mark.parametrize(
    "body",
    [
        # a finite fill: the padded query's row is uniform, not NaN
        "    pair = valid[:, :, None] & valid[:, None, :]\n"
        "    s = s.masked_fill(~pair, torch.finfo(s.dtype).min)\n",
        "    pair = valid[:, :, None] & valid[:, None, :]\n    s = s.masked_fill(~pair, -1e9)\n",
        # & read as forbidden: a pair is forbidden only where both are, no row is empty
        "    pair = valid[:, :, None] & valid[:, None, :]\n"
        "    s = s.masked_fill(pair, float('-inf'))\n",
        # | read as allowed
        "    pair = valid[:, :, None] | valid[:, None, :]\n"
        "    s = torch.where(pair, s, float('-inf'))\n",
        # keys only
        "    s = s.masked_fill(~valid[:, None, None, :], float('-inf'))\n",
        # two different tensors (a query mask and a key mask)
        "    pair = valid[:, :, None] & other[:, None, :]\n"
        "    s = s.masked_fill(~pair, float('-inf'))\n",
        # both views on the same axis
        "    pair = valid[:, None, :] & valid[:, None, :]\n"
        "    s = s.masked_fill(~pair, float('-inf'))\n",
    ],
)
def test_no_row_left_empty(body: str) -> None:
    assert findings(body + _READ) == []


@pytest.mark.parametrize(
    "guarded",
    [
        "    w = torch.softmax(s, dim=-1)\n    return torch.nan_to_num(w) @ v\n",
        "    out = torch.softmax(s, dim=-1) @ v\n"
        "    return torch.where(torch.isnan(out), 0.0, out)\n",
        # the padded queries' rows zeroed: the rows the mask left with no key
        "    w = torch.softmax(s, dim=-1)\n"
        "    return w.masked_fill(~valid.unsqueeze(-1), 0.0) @ v\n",
        "    w = torch.softmax(s, dim=-1)\n    return w.masked_fill(~valid[..., None], 0.0) @ v\n",
    ],
)
def test_a_nan_guard_after_the_softmax_or_the_attention(guarded: str) -> None:
    body = (
        "    pair = valid[:, :, None] & valid[:, None, :]\n"
        "    s = s.masked_fill(~pair, float('-inf'))\n" + guarded
    )
    assert findings(body) == []


def test_the_mask_handed_to_a_helper_is_reported_where_it_is_built() -> None:
    source = (
        _HEAD + "def sdpa(q, k, v, mask):\n"
        "    s = q @ k.transpose(-1, -2) + mask\n"
        "    return torch.softmax(s, dim=-1) @ v\n\n\n"
        "def vision_attention(q, k, v, valid):\n"
        "    allowed = valid[:, None, :, None] & valid[:, None, None, :]\n"
        "    mask = torch.zeros(allowed.shape).masked_fill(~allowed, float('-inf'))\n"
        "    return sdpa(q, k, v, mask)\n"
    )
    found = check_source(source, "case.py")
    assert [(finding.line, finding.code) for finding in found] == [(10, "AM602")]
    assert "line 6: `torch.softmax(s, dim=-1)`" in found[0].expects


def test_the_rows_of_real_queries_selected_before_the_softmax() -> None:
    body = (
        "    pair = valid[:, :, None] & valid[:, None, :]\n"
        "    s = s.masked_fill(~pair, float('-inf'))\n"
        "    rows = s[valid]  # [N, L]: the real queries' rows only\n"
        "    return torch.softmax(rows, dim=-1)\n"
    )
    assert findings(body) == []


@pytest.mark.parametrize("heads", ["pair[:, None]", "pair.unsqueeze(1)", "pair[:, None, :, :]"])
def test_a_heads_axis_added_to_the_pairwise_mask(heads: str) -> None:
    body = (
        "    pair = valid[:, :, None] & valid[:, None, :]\n"
        f"    s = s.masked_fill(~{heads}, float('-inf'))\n" + _READ
    )
    assert findings(body) == [(6, "AM602")]


@pytest.mark.parametrize(
    ("fill", "expected"),
    [
        ("float('-inf')", ["AM602"]),  # a padded query's row is all -inf: NaN
        ("torch.finfo(s.dtype).min", []),  # uniform over its keys, finite
        ("-1e9", []),
    ],
)
def test_padding_masks_of_both_axes_joined(fill: str, expected: list[str]) -> None:
    """Two padding masks whose rows the code shows, one on each axis (cross-attention)."""
    body = "def attend(q, k, v, q_ids, k_ids, pad):\n"
    body += "    pair = (q_ids != pad)[:, :, None] & (k_ids != pad)[:, None, :]\n" + _SCORES
    body += f"    s = s.masked_fill(~pair[:, None], {fill})\n" + _READ
    assert [finding.code for finding in check_source(_HEAD + body, "case.py")] == expected


@pytest.mark.parametrize(
    "pair",
    [
        "valid.unsqueeze(3) & valid.unsqueeze(1)",  # not next to each other
        "valid.unsqueeze(2) & other.unsqueeze(1)",  # two tensors
        "valid.unsqueeze(0) & valid.unsqueeze(1)",  # 0 is the batch
    ],
)
def test_no_pair_of_unsqueezes(pair: str) -> None:
    body = f"    other = valid\n    pair = {pair}\n    s = s.masked_fill(~pair, float('-inf'))\n"
    assert findings(body + _READ) == []


def test_zeroing_other_rows_is_no_guard() -> None:
    """Rows of another mask, or the keys' axis, leave the padded queries' NaN rows."""
    for zeroed in ("~other.unsqueeze(-1)", "~valid.unsqueeze(-2)", "valid.unsqueeze(-1)"):
        body = (
            "    other = valid\n"
            "    pair = valid[:, :, None] & valid[:, None, :]\n"
            "    s = s.masked_fill(~pair, float('-inf'))\n"
            "    w = torch.softmax(s, dim=-1)\n"
            f"    return w.masked_fill({zeroed}, 0.0) @ v\n"
        )
        assert [code for _, code in findings(body)] == ["AM602"], zeroed
