"""Masks built by comparing positions: ``torch.arange`` against itself or against lengths.

``i[:, None] >= i[None, :]`` (query position against key position) is the triangle ``tril``
builds, with literal offsets moving its diagonal; ``torch.arange(S)[None, :] < lengths[:, None]``
is a Boolean ``[B, S]`` key mask, True on each item's first ``lengths[b]`` keys, which a
length's name says are the real tokens.  Both are then checked as the masks they are: their
polarity at each API, and their conversion to 0/1 floats (AM201).
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def codes(body: str, params: str = "q, k, v, x, lengths, n") -> list[tuple[str, int]]:
    source = _HEAD + f"def attend({params}):\n" + body
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


_MHA = "    mha = nn.MultiheadAttention(8, 2, batch_first=True)\n"
_I = "    i = torch.arange(n)\n"


@pytest.mark.parametrize(
    ("mask", "expected"),
    [
        # allowed triangles, handed to MHA (True = masked out): the polarity is wrong
        ("i[:, None] >= i[None, :]", "AM102"),
        ("i[None, :] <= i[:, None]", "AM102"),
        ("i.unsqueeze(-1) >= i.unsqueeze(0)", "AM102"),
        ("i.view(-1, 1).ge(i.view(1, -1))", "AM102"),
        ("i[:, None] + 1 > i", "AM102"),  # j < i + 1 is j <= i
        # the future, as MHA reads it: right
        ("i[:, None] < i[None, :]", None),
        ("i < i[:, None] + 1", "AM102"),  # j < i + 1: allowed, as above
        ("i[:, None] <= i[None, :] - 1", None),  # j >= i + 1: the future
        ("i[:, None] + offset >= i[None, :]", None),  # an offset that is no literal
        ("i[:, None] + 1 >= i[None, :]", None),  # one step of look-ahead, written on purpose
        ("i[:, None] == i[None, :]", None),
        ("i[:, None] - i[None, :] >= 0", "AM102"),  # i - j >= 0 is j <= i: allowed
        ("i[None, :] - i[:, None] > 0", None),  # j - i > 0: the future
        ("i[None, :] - i[:, None] > -window", None),  # a bound that is no literal
    ],
)
def test_a_triangle_of_positions(mask: str, expected: str | None) -> None:
    body = _MHA + _I + f"    m = {mask}\n" + "    return mha(x, x, x, attn_mask=m)[0]\n"
    found = codes(body, "x, n, offset, window")
    assert found == ([(expected, 10)] if expected else [])


def test_a_triangle_on_the_diagonal_above() -> None:
    """``i > j`` forbids the diagonal: to SDPA that is no causal mask (AM303)."""
    body = _I + "    m = i[:, None] > i[None, :]\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m)\n"
    assert [code for code, _ in codes(body, "q, k, v, n")] == ["AM303"]


def test_a_window_that_leaves_out_the_diagonal() -> None:
    """``rel = j - i``; ``rel < 0`` keeps only earlier keys: query 0 has none (AM303)."""
    body = _I + "    rel = i[None, :] - i[:, None]\n    allowed = rel < 0\n"
    body += "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
    body += "    s = s.masked_fill(~allowed, float('-inf'))\n"
    body += "    return s.softmax(dim=-1) @ v\n"
    assert [code for code, _ in codes(body, "q, k, v, n")] == ["AM303"]
    right = body.replace("rel < 0", "rel <= 0")
    assert codes(right, "q, k, v, n") == []


_VALID = "torch.arange(x.size(1))[None, :] < lengths[:, None]"


@pytest.mark.parametrize(
    ("mask", "expected"),
    [
        (_VALID, "AM102"),  # True = real token to MHA's True = padding
        ("torch.arange(x.size(1)).expand(len(lengths), -1) < lengths.unsqueeze(1)", "AM102"),
        ("torch.arange(x.size(1), device=x.device).lt(lengths.view(-1, 1))", "AM102"),
        ("lengths[:, None] > torch.arange(x.size(1))", "AM102"),
        ("torch.arange(x.size(1))[None, :] >= lengths[:, None]", None),  # True = padding
        ("torch.arange(x.size(1)).ge(lengths.unsqueeze(-1))", None),
        # what the other side counts is not said: Boolean, no meaning
        ("torch.arange(x.size(1))[None, :] < starts[:, None]", None),
        ("torch.arange(x.size(1))[None, :] < pad_lengths[:, None]", None),
        ("torch.arange(x.size(1))[None, :] < mask_len[:, None]", None),  # keys to hide
        ("torch.arange(x.size(1))[None, :] <= lengths[:, None]", None),
        ("torch.arange(x.size(1))[None, :] + 1 < lengths[:, None]", None),
    ],
)
def test_a_mask_of_lengths(mask: str, expected: str | None) -> None:
    body = _MHA + f"    m = {mask}\n" + "    return mha(x, x, x, key_padding_mask=m)[0]\n"
    found = codes(body, "x, lengths, starts, pad_lengths, mask_len")
    assert found == ([(expected, 9)] if expected else [])


@pytest.mark.parametrize(
    "mask",
    [
        _VALID,
        "torch.arange(x.size(1))[None, :] < starts[:, None]",  # Boolean, whatever it means
        "torch.arange(n)[:, None] >= torch.arange(n)[None, :]",
    ],
)
def test_positions_converted_to_floats(mask: str) -> None:
    body = f"    m = {mask}\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m.float())\n"
    assert codes(body, "q, k, v, x, n, lengths, starts") == [("AM201", 8)]


def test_a_mask_of_lengths_read_as_allowed() -> None:
    body = f"    m = {_VALID}\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m[:, None, None, :])\n"
    assert codes(body) == []
    inverted = body.replace("attn_mask=m[", "attn_mask=~m[")
    assert codes(inverted) == [("AM101", 8)]


def test_a_mask_of_lengths_moved_to_the_query_axis() -> None:
    """Made a column, the lengths show a ``[B, S]`` mask: ``[:, None, :, None]`` moves its keys."""
    body = f"    m = {_VALID}\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=m[:, None, :, None])\n"
    assert codes(body) == [("AM601", 8)]
    against_a_number = body.replace("lengths[:, None]", "seq_len")
    assert codes(against_a_number, "q, k, v, x, seq_len") == []  # its rank is not shown


def test_a_mask_of_one_length() -> None:
    body = "    m = torch.arange(k.size(-2)) < seq_len\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~m)\n"
    assert codes(body, "q, k, v, seq_len") == [("AM101", 8)]


@pytest.mark.parametrize(
    "other",
    [
        "indices.unsqueeze(-1) == torch.arange(n)",  # one-hot: no mask of keys
        "torch.arange(n) < n_valid",  # not named for a length: Boolean, no meaning
        "torch.arange(n)[1:] < lengths[:, None]",  # shifted by the slice
        "torch.arange(n)[:, None] < lengths",  # positions on the query axis
    ],
)
def test_other_comparisons_of_positions(other: str) -> None:
    body = f"    m = {other}\n"
    body += "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~m)\n"
    assert codes(body, "q, k, v, n, n_valid, lengths, indices") == []


def test_block_positions_make_a_mask_of_no_known_triangle() -> None:
    """``i // chunk`` compared: a Boolean mask (here multiplied in, AM203), no triangle claimed."""
    block = "    c = torch.arange(n) // 2\n    m = (c[None, :] <= c[:, None]).float()\n"
    scores = "    s = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"
    weak = _I + block + scores + "    return (s * m).softmax(dim=-1) @ v\n"
    assert codes(weak, "q, k, v, n") == [("AM203", 11)]
    sdpa = _I + block.replace(".float()", "") + "    return F.scaled_dot_product_attention("
    sdpa += "q, k, v, attn_mask=m)\n"
    assert codes(sdpa, "q, k, v, n") == []
