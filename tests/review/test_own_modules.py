"""A module of the file's own class returns what its ``forward`` returns, even with no mask passed.

Called with values the checker knows, ``forward`` is read again with them; called with nothing it
knows, the call gives what ``forward`` returns with its parameters unknown: softmax weights from
an attention-map module, so a mask set on them afterwards is found (gabrielmittag/NISQA#17).
A normalisation module (``self.q_norm(q)``) still gives a query that carries its own scale,
whatever its ``forward`` computes (vit-pytorch's ``simple_vit_with_qk_norm``: no AM501).
"""

from __future__ import annotations

from pathlib import Path

from attention.review.check import check_source

CASE = Path(__file__).parent / "bugs" / "development" / "mask_after_softmax__gabrielmittag_nisqa_17"
"""The bug corpus's case: AttDot's forward returns softmax weights; Alignment masks them after."""

QK_NORM = """import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, heads, dim):
        super().__init__()
        self.scale = dim ** 0.5
        self.gamma = nn.Parameter(torch.ones(heads, 1, dim) / self.scale)

    def forward(self, x):
        return F.normalize(x, dim=-1) * self.scale * self.gamma


class Attention(nn.Module):
    def __init__(self, heads, dim_head):
        super().__init__()
        self.heads = heads
        self.q_norm = RMSNorm(heads, dim_head)
        self.k_norm = RMSNorm(heads, dim_head)

    def forward(self, q, k, v):
        q = self.q_norm(q)
        k = self.k_norm(k)
        dots = torch.matmul(q, k.transpose(-1, -2))
        return torch.matmul(dots.softmax(dim=-1), v)
"""


def test_a_mask_set_on_the_weights_a_module_returns_is_found() -> None:
    found = check_source(CASE.with_name(CASE.name + "_bug.py").read_text())
    assert [(f.line, f.code) for f in found] == [(27, "AM401")]
    assert check_source(CASE.with_name(CASE.name + "_fix.py").read_text()) == []


def test_a_normalised_query_carries_its_own_scale() -> None:
    assert check_source(QK_NORM) == []
