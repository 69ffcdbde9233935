"""Scores whose rank or layout the code shows in other ways than ``q @ k.transpose(-2, -1)``.

- ``k, v = kv[0], kv[1]``: the keys are not followed, but the permuted queries give the rank,
  so ``nn.Softmax(dim=2)`` of ``[B, H, N, M]`` scores is the query axis (AM402).
- ``q, k, v = qkv.unbind(0)`` of a permuted ``[3, B, H, N, d]``: each part has the rank.
- ``q.transpose(-2, -1) @ k`` of channels-first ``[B, H, d, N]`` queries and keys (diffusion
  models' spatial attention) is ``[B, H, N, N]`` scores too; named the other way round
  (``k.transpose(-2, -1) @ q``) it is not read.
"""

from __future__ import annotations

import pytest
import torch

from attention.review.check import check_source

_CROSS = """import torch
from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, dim, num_heads=8):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.to_q = nn.Linear(dim, dim)
        self.to_kv = nn.Linear(dim, dim * 2)
        self.softmax = nn.Softmax(dim={dim})

    def forward(self, x, context):
        B, N, C = x.shape
        M = context.shape[1]
        q = self.to_q(x).reshape(B, N, self.num_heads, C // self.num_heads).permute(0, 2, 1, 3)
        kv = self.to_kv(context).reshape(B, M, 2, self.num_heads, C // self.num_heads)
        {keys}
        attn = self.softmax((q @ k.transpose(-2, -1)) * self.scale)
        return attn @ v
"""


def codes(source: str) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "keys",
    [
        "kv = kv.permute(2, 0, 3, 1, 4)\n        k, v = kv[0], kv[1]",
        "k, v = kv.permute(2, 0, 3, 1, 4).unbind(0)",
    ],
)
def test_the_queries_give_the_rank(keys: str) -> None:
    assert codes(_CROSS.format(dim=2, keys=keys)) == [(12, "AM402")]
    assert codes(_CROSS.format(dim=-1, keys=keys)) == []
    assert codes(_CROSS.format(dim=3, keys=keys)) == []


_SPATIAL = """import torch


def spatial_attention(qkv, heads, head_dim):
    B, _, N = qkv.shape
    q, k, v = qkv.reshape(B, 3, heads, head_dim, N).permute(1, 0, 2, 3, 4).unbind(0)
    attn = ({left} @ {right}) * head_dim ** -0.5
    attn = attn.softmax(dim={dim})
    return v @ attn.transpose(-2, -1)
"""


@pytest.mark.parametrize("dim", [-2, 1, 2])
def test_channels_first_queries_and_keys(dim: int) -> None:
    """dim=1 is wrong only where the rank is known: from the unbound parts of the permute."""
    found = codes(_SPATIAL.format(left="q.transpose(-2, -1)", right="k", dim=dim))
    assert found == [(8, "AM402")]
    assert codes(_SPATIAL.format(left="q.transpose(-2, -1)", right="k", dim=-1)) == []


def test_named_the_other_way_round() -> None:
    assert codes(_SPATIAL.format(left="k.transpose(-2, -1)", right="q", dim=-2)) == []


def test_the_claim_on_torch() -> None:
    """Channels first, q.transpose(-2, -1) @ k holds each query's scores over the keys."""
    torch.manual_seed(0)
    q, k = torch.randn(2, 1, 2, 4, 5)  # [B, H, d, N]
    scores = torch.einsum("bhdi,bhdj->bhij", q, k)  # every query against every key
    assert (q.transpose(-2, -1) @ k).allclose(scores)
    weights = (q.transpose(-2, -1) @ k).softmax(dim=-1)
    assert weights.sum(dim=-1).allclose(torch.ones(1, 2, 5))


_PCT = """import torch
import torch.nn.functional as F


def point_attention(x, q_conv, k_conv, scale):
    x_q = q_conv(x).permute(0, 2, 1)  # B, N, C/4
    x_k = k_conv(x)  # B, C/4, N
    energy = torch.bmm(x_q, x_k) * scale
    return F.softmax(energy{dim})
"""


@pytest.mark.parametrize(("dim", "expected"), [("", [(9, "AM402")]), (", dim=-1", [])])
def test_point_cloud_queries_moved_first(dim: str, expected: list) -> None:
    """PCT's ``torch.bmm(x_q, x_k)``: no dim on [B, N, N] scores is dim 0, the batch."""
    assert codes(_PCT.format(dim=dim)) == expected
