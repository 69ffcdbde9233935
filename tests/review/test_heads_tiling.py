"""AM804: a mask tiled for the heads in another order than the scores' rows.

Heads split with ``view(B, L, H, d).transpose(1, 2)`` and merged with ``reshape(B * H, L, d)``
give scores whose row ``b·H + h`` is item b, head h: ``repeat_interleave(H, dim=0)`` tiles a
``[B, L, S]`` mask so, ``repeat(H, 1, 1)`` tiles it ``h·B + b``.  Split with
``permute(2, 0, 1, 3)`` the rows are ``h·B + b`` and the reverse holds.  Where the split or
the merge is not shown, nothing is said.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_LAYER = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, dim // num_heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def split(self, x, bsz):
        x = x.view(bsz, -1, self.num_heads, self.head_dim).{move}
        return x.reshape({merged}, -1, self.head_dim)

    def forward(self, x, ids, pad_id):
        bsz, n = ids.shape
        q, k = self.split(self.q(x), bsz), self.split(self.k(x), bsz)
        padding = (ids == pad_id)[:, None, :].expand(bsz, n, n)
        tiled = padding.{tile}
        scores = torch.bmm(q, k.transpose(1, 2)) / self.head_dim**0.5
        {mask}
        return torch.softmax(scores, dim=-1)
"""

_BATCH = "transpose(1, 2)"
_HEAD = "permute(2, 0, 1, 3)"
_REPEAT = "repeat(self.num_heads, 1, 1)"
_INTERLEAVE = "repeat_interleave(self.num_heads, dim=0)"
_FILL = "scores = scores.masked_fill(tiled, float('-inf'))"


def codes(move: str, tile: str, mask: str = _FILL, merged: str = "bsz * self.num_heads") -> list:
    source = _LAYER.format(move=move, tile=tile, mask=mask, merged=merged)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("move", "tile", "expected"),
    [
        (_BATCH, _REPEAT, [("AM804", 20)]),
        (_BATCH, _INTERLEAVE, []),
        (_HEAD, _INTERLEAVE, [("AM804", 20)]),
        (_HEAD, _REPEAT, []),
        ("permute(0, 2, 1, 3)", _REPEAT, [("AM804", 20)]),
        ("contiguous()", _REPEAT, []),  # no transpose: the merge is AM803's matter, not this
    ],
)
def test_the_tiling_against_the_split(move: str, tile: str, expected: list) -> None:
    assert codes(move, tile) == expected


@pytest.mark.parametrize(
    "mask",
    [
        "scores = scores + tiled.float() * -1e9",
        "scores = torch.where(tiled, float('-inf'), scores)",
        "scores = scores.masked_fill(tiled, float('-inf'))",
    ],
)
def test_every_way_the_mask_reaches_the_scores(mask: str) -> None:
    assert codes(_BATCH, _REPEAT, mask) == [("AM804", 20)]


@pytest.mark.parametrize(
    ("merged", "expected"),
    [
        ("self.num_heads * bsz", [("AM804", 20)]),  # the same product
        ("-1", [("AM804", 20)]),
        ("bsz * n * self.num_heads", []),  # not the two axes the split made
        ("n * self.num_heads", []),
    ],
)
def test_the_merge(merged: str, expected: list) -> None:
    assert codes(_BATCH, _REPEAT, merged=merged) == expected


def test_a_mask_tiled_by_another_count() -> None:
    """repeat(2, 1, 1) of no head count: not tiled for the heads (as AM802 reads it)."""
    assert codes(_BATCH, "repeat_interleave(2, dim=0)") == []


_KERAS = """import torch


def split(x, n_head):
    s = x.shape
    x = x.reshape(s[0], s[1], n_head, s[2] // n_head).{move}
    return x.reshape(-1, s[1], s[2] // n_head)


def attend(q, k, {mask_name}, n_head):
    {heads}
    tiled = {mask_name}.repeat_interleave(n_head, dim=0)
    scores = torch.bmm(qs, ks.transpose(1, 2)) / qs.size(-1) ** 0.5
    scores = scores + (1 - tiled) * -1e4
    return scores.softmax(dim=-1)
"""

_BY_NAME = "qs, ks = split(q, n_head), split(k, n_head)"


def keras(heads: str = _BY_NAME, move: str = _HEAD, mask_name: str = "mask") -> list:
    source = _KERAS.format(heads=heads, move=move, mask_name=mask_name)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "heads",
    [
        _BY_NAME,
        "qs, ks = (split(t, n_head) for t in (q, k))",
        "qs, ks = [split(t, n_head) for t in [q, k]]",
        "qs, ks = map(lambda t: split(t, n_head), (q, k))",
    ],
)
def test_heads_split_by_a_helper_for_each_of_q_and_k(heads: str) -> None:
    """A mask parameter known by nothing but its name, a split written with ``s = x.shape``
    (lsdefine/attention-is-all-you-need-keras#36's shape), reached one by one or mapped."""
    assert keras(heads) == [("AM804", 12)]
    assert keras(heads, move=_BATCH) == []  # repeat_interleave is right for a batch-major split


def test_a_tensor_not_named_for_a_mask_is_not_read_as_one() -> None:
    """``bias.repeat_interleave(H, dim=0)``: nothing says it is a mask; the pass says nothing."""
    assert keras(mask_name="bias") == []


def test_a_comprehension_with_a_condition_is_not_read() -> None:
    assert keras("qs, ks = [split(t, n_head) for t in (q, k) if t is not None]") == []


_JADORE = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.n_head = n_head
        self.w_qs = nn.Linear(d_model, d_model)
        self.w_ks = nn.Linear(d_model, d_model)

    def forward(self, q, k, mask):
        d_k = q.size(-1) // self.n_head
        sz_b, {len_q}, _ = q.size()
        {len_k} = k.size(1)
        q = self.w_qs(q).view(sz_b, {len_q}, self.n_head, d_k)
        k = self.w_ks(k).view(sz_b, {len_k}, self.n_head, d_k)
        q = q.permute(2, 0, 1, 3).contiguous().view(-1, {len_q}, d_k)
        k = k.permute(2, 0, 1, 3).contiguous().view(-1, {len_k}, d_k)
        mask = mask.repeat_interleave(self.n_head, dim=0)
        attn = torch.bmm(q, k.transpose(1, 2)) / d_k ** 0.5
        return attn.masked_fill(mask, -1e4).softmax(dim=2)
"""


@pytest.mark.parametrize(
    ("len_q", "len_k"), [("len_q", "len_k"), ("q_len", "kv_len"), ("lq", "lk")]
)
def test_lengths_named_len_q_and_len_k(len_q: str, len_k: str) -> None:
    """attention-is-all-you-need-pytorch names its lengths ``len_q`` / ``len_k``; names that
    say nothing (``lq``) leave the split unread."""
    source = _JADORE.format(len_q=len_q, len_k=len_k)
    found = [(f.code, f.line) for f in check_source(source, "case.py")]
    assert found == ([] if len_q == "lq" else [("AM804", 20)])


@pytest.mark.parametrize(
    ("tile", "expected"),
    [
        ("torch.cat([padding] * self.num_heads, dim=0)", [("AM804", 20)]),
        ("torch.cat(self.num_heads * [padding])", [("AM804", 20)]),
        ("torch.cat([padding] * self.num_heads, dim=-1)", []),  # not along the batch
        ("torch.cat([padding] * 2)", []),  # no head count
    ],
)
def test_copies_joined_are_tiled_head_major(tile: str, expected: list) -> None:
    """``torch.cat([mask] * H)`` lays the copies one after another, as ``repeat(H, 1, 1)``."""
    source = _LAYER.format(move=_BATCH, tile="clone()", mask=_FILL, merged="bsz * self.num_heads")
    source = source.replace("tiled = padding.clone()", f"tiled = {tile}")
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


def test_copies_joined_for_multihead_attention() -> None:
    """nn.MultiheadAttention reads a 3-D mask b·H + h: ``torch.cat([m] * H)`` is AM802."""
    source = (
        "import torch\nfrom torch import nn\n\n\n"
        "def f(x, allowed, num_heads):\n"
        "    mha = nn.MultiheadAttention(8, num_heads)\n"
        "    additive = torch.zeros(allowed.shape).masked_fill(~allowed, float('-inf'))\n"
        "    return mha(x, x, x, attn_mask=torch.cat([additive] * num_heads))\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == [("AM802", 8)]


_EXPANDED = """import torch
from torch import nn


class DocumentAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.mha = nn.MultiheadAttention(dim, num_heads, batch_first=True)

    def forward(self, x, doc_ids):
        B, L, _ = x.shape
        blocked = doc_ids[:, :, None] != doc_ids[:, None, :]
        mask = blocked[:, None].expand(B, self.num_heads, L, L){move}.reshape({merged}, L, L)
        return self.mha(x, x, x, attn_mask=mask)[0]
"""


@pytest.mark.parametrize(
    ("move", "merged", "expected"),
    [
        (".transpose(0, 1)", "B * self.num_heads", [("AM802", 14)]),  # head-major
        (".permute(1, 0, 2, 3).contiguous()", "-1", [("AM802", 14)]),
        ("", "B * self.num_heads", []),  # batch-major, as nn.MultiheadAttention reads it
        (".transpose(2, 3)", "B * self.num_heads", []),  # the first two axes stay
        (".transpose(0, 1)", "B * L", []),  # not the batch and the heads merged
    ],
)
def test_a_mask_expanded_per_head_and_merged(move: str, merged: str, expected: list) -> None:
    """``expand(B, H, L, S)``, then the merge: ``transpose(0, 1)`` first makes it head-major."""
    source = _EXPANDED.format(move=move, merged=merged)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


_ALIASED = """import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, keep):
        B, L, D = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k = (t.view(B, L, self.h, -1).transpose(1, 2).reshape(B * self.h, L, -1) for t in (q, k))
        scores = torch.bmm(q, k.transpose(1, 2)) * (D // self.h) ** -0.5
        keep = keep.repeat(self.h, 1, 1)
        return scores.masked_fill(~keep, float("-inf")).softmax(-1)
{more}"""


def test_a_name_the_module_gives_a_head_count() -> None:
    """``self.h = heads``: ``h`` counts heads in this module, where nothing else is put in it."""
    found = check_source(_ALIASED.format(more=""), "case.py")
    assert [(f.code, f.line) for f in found] == [("AM804", 16)]
    # `h` is also a parameter (a height) elsewhere in the module: no longer an alias
    elsewhere = "\n\ndef resize(x, h, w):\n    return x.view(-1, h, w)\n"
    assert check_source(_ALIASED.format(more=elsewhere), "case.py") == []


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        ("adj == 0", [("AM802", 7)]),  # Boolean, whatever adj holds
        ("adj != 1", [("AM802", 7)]),
        ("adj", []),  # nothing known of it
    ],
)
def test_a_comparison_of_an_unknown_tensor_with_0_or_1_is_a_mask(made: str, expected: list) -> None:
    """A graph's ``adj == 0`` tiled with ``torch.cat([m] * H)`` for F.multi_head_attention_forward."""
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "def f(x, adj, num_heads, *weights):\n"
        f"    blocked = {made}\n"
        "    return F.multi_head_attention_forward(x, x, x, 8, num_heads, *weights, "
        "attn_mask=torch.cat([blocked] * num_heads, dim=0))\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


@pytest.mark.parametrize(
    ("tile", "expected"),
    [
        ("unsqueeze(0).expand(num_heads, -1, -1, -1).flatten(0, 1)", [("AM802", 9)]),
        ("unsqueeze(0).expand(num_heads, -1, -1, -1).reshape(-1, L, L)", [("AM802", 9)]),
        ("unsqueeze(1).expand(-1, num_heads, -1, -1).flatten(0, 1)", []),  # b·H + h
        ("unsqueeze(0).expand(2, -1, -1, -1).flatten(0, 1)", []),  # no head count
    ],
)
def test_a_per_sample_mask_given_a_first_axis_for_the_heads(tile: str, expected: list) -> None:
    """Packed sequences' [B, L, L] segment mask tiled for nn.TransformerEncoder's 3-D mask."""
    source = (
        "import torch\nfrom torch import nn\n\n\n"
        "def f(encoder: nn.TransformerEncoder, x, segment_ids, num_heads):\n"
        "    L = x.size(1)\n"
        "    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, num_heads), 1)\n"
        "    blocked = segment_ids[:, :, None] != segment_ids[:, None, :]\n"
        f"    return encoder(x, mask=blocked.{tile})\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


_TF1 = """import torch
import torch.nn.functional as F


def attend(Q, K, block_mask, num_heads, d_head):
    Q_ = torch.cat({split_q}, dim=0)  # (h*N, T_q, C/h)
    K_ = torch.cat({split_k}, dim=0)
    outputs = torch.bmm(Q_, K_.transpose(1, 2)) / d_head**0.5
    masks = block_mask.{tile}
    outputs = outputs.masked_fill(~masks, float("-inf"))
    return F.softmax(outputs, dim=-1)
"""


@pytest.mark.parametrize(
    ("split", "tile", "expected"),
    [
        ("torch.split({x}, d_head, dim=2)", "repeat_interleave(num_heads, dim=0)", [("AM804", 9)]),
        (
            "torch.chunk({x}, num_heads, dim=-1)",
            "repeat_interleave(num_heads, dim=0)",
            [("AM804", 9)],
        ),
        ("{x}.split(d_head, dim=-1)", "repeat_interleave(num_heads, dim=0)", [("AM804", 9)]),
        ("torch.split({x}, d_head, dim=2)", "repeat(num_heads, 1, 1)", []),  # h·B + b: right
        ("torch.split({x}, 8, dim=2)", "repeat_interleave(num_heads, dim=0)", []),  # no head size
    ],
)
def test_heads_stacked_on_the_batch_as_tf1_did(split: str, tile: str, expected: list) -> None:
    """``torch.cat(torch.split(Q, d_head, dim=2), dim=0)`` lays the rows h·B + b."""
    source = _TF1.format(split_q=split.format(x="Q"), split_k=split.format(x="K"), tile=tile)
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == expected


def test_a_parameter_named_a_mask_joined_per_head() -> None:
    """Nothing is known of ``align_mask`` but its name: its tiling alone is checked."""
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "def f(x, align_mask, num_heads, *weights):\n"
        "    return F.multi_head_attention_forward(x, x, x, 8, num_heads, *weights, "
        "attn_mask=torch.cat([align_mask] * num_heads, dim=0))\n"
    )
    assert [(f.code, f.line) for f in check_source(source, "case.py")] == [("AM802", 6)]
    other = source.replace("align_mask", "alignment")  # not named a mask: nothing known
    assert check_source(other, "case.py") == []
    # B * H copies: a mask shared by every item ([1, L, S]), any order is right
    shared = source.replace("[align_mask] * num_heads", "[align_mask] * (x.size(1) * num_heads)")
    assert check_source(shared, "case.py") == []
