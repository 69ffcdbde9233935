"""A softmax over the key axis after a reshape or flatten folded it in with other axes (AM402).

DETR's ``MHAttentionMap`` took ``softmax(weights.flatten(2))`` of einsum's ``[b, q, n, h, w]``:
one softmax over the heads and the pixels together (facebookresearch/detr#247; the fix is
``flatten(3)``, which folds only the key axes ``h, w``).  ``s.view(B, H, L * L)`` of 4-D scores
does the same to the queries.  A reshape that keeps the keys alone (``s.reshape(B * H * L, L)``)
is right, and a size that leaves unsaid which axes it holds (``-1``, ``bh``) is not read.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

_DETR = """import torch
import torch.nn.functional as F


def attention_map(qh, kh, num_heads):
    weights = torch.einsum("bqnc,bnchw->bqnhw", qh * 0.5, kh)
    return F.softmax(weights.flatten({start}), dim=-1).view(weights.size())
"""

_RESHAPED = """import torch


def weights(q, k):
    B, num_heads, L, D = q.shape
    s = (q @ k.transpose(-2, -1)) / D**0.5
    return s.{shape}.softmax(-1).view(B, num_heads, L, L)
"""


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


def test_flatten_folds_the_heads_into_the_pixels() -> None:
    assert codes(_DETR.format(start=2)) == [(7, "AM402")]
    assert codes(_DETR.format(start="start_dim=1")) == [(7, "AM402")]


@pytest.mark.parametrize("start", ["3", "-2", "start_dim=3"])
def test_flatten_of_the_key_axes_alone(start: str) -> None:
    assert codes(_DETR.format(start=start)) == []


def test_weights_times_values_are_no_scores() -> None:
    """``bhij,bhjd->bhid`` has the shape of ``bhid,bhdj->bhij``: it is read as neither."""
    source = _DETR.replace('"bqnc,bnchw->bqnhw", qh * 0.5, kh', '"bqj,bjhw->bqhw", qh, kh')
    assert codes(source.format(start=1)) == []


@pytest.mark.parametrize("shape", ["view(B, num_heads, L * L)", "reshape(B, num_heads, L * L)"])
def test_a_reshape_folds_the_queries_into_the_keys(shape: str) -> None:
    assert codes(_RESHAPED.format(shape=shape)) == [(7, "AM402")]


@pytest.mark.parametrize(
    "shape",
    [
        "reshape(B * num_heads * L, L)",  # every key axis alone
        "view(B * num_heads, L, L)",
        "view(B, num_heads, -1)",  # -1: not read
        "view(B * num_heads, L * L)",  # a product before the last: not read
    ],
)
def test_a_reshape_that_keeps_the_keys_or_says_nothing(shape: str) -> None:
    assert codes(_RESHAPED.format(shape=shape)) == []


def test_the_claim_on_torch() -> None:
    """Over heads and pixels together, each head's map sums to its share, not to 1."""
    torch.manual_seed(0)
    weights = torch.randn(1, 1, 2, 2, 3)  # [b, q, n, h, w]
    joint = torch.softmax(weights.flatten(2), dim=-1).view(weights.size())
    per_head = torch.softmax(weights.flatten(3), dim=-1).view(weights.size())
    assert per_head.sum(dim=(-2, -1)).allclose(torch.ones(1, 1, 2))
    assert not joint.sum(dim=(-2, -1)).allclose(torch.ones(1, 1, 2))
    assert joint.sum(dim=(-3, -2, -1)).allclose(torch.ones(1, 1))


_PACKED = """import math
import torch
import torch.nn.functional as F


def attend(x, qkv, n_heads, d_head):
    B, T, C = x.shape
    qkv = qkv(x).view(B, T, 3, n_heads, d_head).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d_head)
    att = {fold}
    return F.softmax(att, dim=-1)
"""


@pytest.mark.parametrize(
    ("fold", "expected"),
    [
        ("att.reshape(B, n_heads, T * T)", [(12, "AM402")]),  # queries and keys together
        ("att.transpose(1, 2).reshape(B, T, n_heads * T)", [(12, "AM402")]),  # heads and keys
        ("att.transpose(1, 2)", []),  # the keys stay last
        ("att.transpose(2, 3).reshape(B, n_heads, T * T)", []),  # keys moved: not read
    ],
)
def test_parts_indexed_out_of_a_permuted_projection(fold: str, expected: list) -> None:
    """``qkv[0]`` of a permuted [3, B, H, T, d] has the rank; a swap of the heads and the
    queries keeps the keys last."""
    assert codes(_PACKED.format(fold=fold)) == expected


@pytest.mark.parametrize(
    "source",
    [
        # a key feature map's two axes folded together: each query's softmax over its pixels
        "import torch\n\n\ndef cross(q, k, scale, num_heads):\n"
        "    attn = torch.einsum('bnc,bchw->bnhw', q * scale, k)\n"
        "    b, n, h, w = attn.shape\n"
        "    return attn.reshape(b, n, h * w).softmax(-1)\n",
        # one softmax over every pair: a matching's distribution, no heads in sight
        "import torch\n\n\ndef match(d0, d1, t):\n"
        "    b, n, m = d0.size(0), d0.size(1), d1.size(1)\n"
        "    sim = torch.bmm(d0, d1.transpose(1, 2)) / t\n"
        "    return torch.softmax(sim.view(b, n * m), -1)\n",
    ],
)
def test_folds_that_are_meant(source: str) -> None:
    assert codes(source) == []


@pytest.mark.parametrize(
    ("other", "expected"), [("F.softmax(sim, 2)", []), ("2.0", [(7, "AM402")])]
)
def test_a_dual_softmax(other: str, expected: list) -> None:
    """LoFTR's ``F.softmax(sim, 1) * F.softmax(sim, 2)``: both axes of one matching, on purpose."""
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "def dual_softmax(feat_c0, feat_c1, temperature):\n"
        "    sim = torch.einsum('nlc,nsc->nls', feat_c0, feat_c1) / temperature\n"
        f"    return F.softmax(sim, 1) * {other}\n"
    )
    assert codes(source) == expected
