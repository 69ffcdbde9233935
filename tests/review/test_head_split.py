"""AM803: an ``nn.Linear``'s output viewed with the heads before its positions.

A Linear's output ``[B, L, H·d]`` runs position by position in memory, so ``view(B, H, -1, d)``
or ``view(B * H, -1, d)`` makes each "head" a chunk of one item's positions (FuxiCTR#30).
A file is read only if it shows attention (a softmax, SDPA, a mask).  Reported only on a
Linear's output as it came out (a Conv's channels come first, a permuted or
transposed tensor is laid out otherwise), with nothing but batch sizes before the head count
and a ``-1`` or a length after it that is not the last size.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_MODULE = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Attention(nn.Module):\n"
    "    def __init__(self, dim, heads):\n"
    "        super().__init__()\n"
    "        self.num_heads, self.head_dim = heads, dim // heads\n"
    "        self.q = {layer}\n\n"
    "    def forward(self, x):\n"
    "        bsz, seq_len = x.size(0), x.size(1)\n"
    "        q = {split}\n"
    "        return torch.softmax(q @ q.transpose(-2, -1) / self.head_dim**0.5, -1) @ q\n"
)
_LINEAR = "nn.Linear(dim, dim)"


def codes(split: str, layer: str = _LINEAR) -> list[str]:
    source = _MODULE.format(layer=layer, split=split)
    return [finding.code for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    "split",
    [
        "self.q(x).view(bsz, self.num_heads, -1, self.head_dim)",
        "self.q(x).reshape(bsz, self.num_heads, -1, self.head_dim)",
        "self.q(x).view(bsz * self.num_heads, -1, self.head_dim)",
        "self.q(x).view(x.size(0), self.num_heads, -1, self.head_dim)",
        "self.q(x).view(x.shape[0], self.num_heads, -1, self.head_dim)",
        "self.q(x).view((bsz, self.num_heads, -1, self.head_dim))",
        "self.q(x).view(bsz, self.num_heads, seq_len, self.head_dim)",
        "self.q(x).view(size=(bsz, self.num_heads, -1, self.head_dim))",
        "self.q(x).view(bsz, self.num_heads, -1, self.head_dim).transpose(1, 2)",
    ],
)
def test_heads_before_the_positions(split: str) -> None:
    assert codes(split) == ["AM803"]


@pytest.mark.parametrize(
    "split",
    [
        "self.q(x).view(bsz, -1, self.num_heads, self.head_dim).transpose(1, 2)",
        "self.q(x).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)",
        "self.q(x).view(-1, self.num_heads, self.head_dim)",
        "self.q(x).view(bsz, self.num_heads, 1, self.head_dim)",  # one position, said so
        "self.q(x).view(bsz, self.num_heads, self.head_dim, -1)",  # nothing after the -1
        "self.q(x).view(bsz * seq_len, self.num_heads, -1, 2)",  # the positions come first
        "self.q(x).view(bsz, seq_len * self.num_heads, -1, self.head_dim)",  # so here
        "self.q(x).transpose(1, 2).reshape(bsz, self.num_heads, -1, self.head_dim)",
        "self.q(x).view(bsz, self.num_heads, self.head_dim)",  # [B, E]: no positions shown
        "self.q(x).view(bsz, self.num_heads, -1)",
    ],
)
def test_positions_first_or_not_shown(split: str) -> None:
    assert "AM803" not in codes(split)


def test_a_convolution_keeps_its_channels_first() -> None:
    # [B, C, H, W]: heads · head size is the second axis, so this view is right
    split = "self.q(x).view(bsz, self.num_heads, self.head_dim, -1)"
    assert codes(split, "nn.Conv2d(dim, dim, 1)") == []
    split = "self.q(x).reshape(bsz, self.num_heads, -1, self.head_dim)"
    assert codes(split, "nn.Conv2d(dim, dim, 1)") == []


def test_a_helper_handed_the_linear_output() -> None:
    source = (
        "from torch import nn\n\n\n"
        "class Attention(nn.Module):\n"
        "    def __init__(self, dim, heads):\n"
        "        super().__init__()\n"
        "        self.num_heads, self.head_dim = heads, dim // heads\n"
        "        self.W_q = nn.Linear(dim, dim)\n\n"
        "    def split(self, x, batch_size):\n"
        "        return x.view(batch_size * self.num_heads, -1, self.head_dim)\n\n"
        "    def forward(self, x):\n"
        "        q = self.split(self.W_q(x), x.size(0))\n"
        "        return (q @ q.transpose(1, 2) / self.head_dim**0.5).softmax(-1) @ q\n"
    )
    found = check_source(source, "case.py")
    assert [(finding.code, finding.line) for finding in found] == [("AM803", 11)]
    # the same helper handed something else says nothing
    other = source.replace("self.split(self.W_q(x), x.size(0))", "self.split(x, x.size(0))")
    assert check_source(other, "case.py") == []
