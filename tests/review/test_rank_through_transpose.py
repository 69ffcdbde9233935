"""Heads split with ``view`` and moved with ``transpose`` keep their rank, and so do the scores.

``q = proj(x).view(B, L, H, d).transpose(1, 2)`` is 4-D, so ``q @ k.transpose(-2, -1)`` is
``[B, H, L, S]`` and a softmax over ``dim=1`` runs across the heads (AM402).
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_SOURCE = """\
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, x):
        B, L, _ = x.shape
        q = self.q(x).view(B, L, self.heads, self.head_dim).{move}
        k = self.k(x).view(B, L, self.heads, self.head_dim).{move}
        s = q @ k.transpose(-2, -1) / self.head_dim**0.5
        return torch.softmax(s, dim={dim})
"""


@pytest.mark.parametrize("move", ["transpose(1, 2)", "permute(0, 2, 1, 3)", "swapaxes(1, 2)"])
@pytest.mark.parametrize(("dim", "expected"), [("1", ["AM402"]), ("-1", []), ("3", [])])
def test_the_rank_survives_the_head_transpose(move: str, dim: str, expected: list[str]) -> None:
    source = _SOURCE.format(move=move, dim=dim)
    assert [finding.code for finding in check_source(source, "case.py")] == expected


def test_a_linear_output_shows_only_its_last_axis() -> None:
    # [L, B, 16] -> [B, L, 16]: the rank is the input's, which nothing shows here
    source = (
        "import torch\nfrom torch import nn\n\n"
        "q_proj = nn.Linear(16, 16)\nk_proj = nn.Linear(16, 16)\n\n\n"
        "def attend(x):\n"
        "    q = q_proj(x).permute(1, 0, 2)\n"
        "    k = k_proj(x).permute(1, 0, 2)\n"
        "    return torch.softmax(q @ k.transpose(1, 2) / 4.0, dim=2)\n"
    )
    assert check_source(source, "case.py") == []
