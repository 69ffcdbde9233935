"""AM801 only where the code shows the token ids batch first.

An ``nn.Embedding`` keeps its ids' layout: ``[B, T]`` ids give ``[B, T, E]``, ``[T, B]`` ids
(PyTorch's word-language model) give ``[T, B, E]``, which is what ``nn.MultiheadAttention``
without ``batch_first=True`` reads.  The rule fires for a tokenizer's ``input_ids`` or where
the function names the ids' sizes batch first, and says nothing where nothing shows which.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_MODEL = """import torch
from torch import nn


class LM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = nn.MultiheadAttention(dim, 2)

    def forward(self, src, batch):
        {sizes}
        x = self.embed({ids})
        out, _ = self.attn(x, x, x)
        return out
"""


def codes(ids: str, sizes: str = "pass") -> list[tuple[str, int]]:
    source = _MODEL.format(ids=ids, sizes=sizes)
    return [(finding.code, finding.line) for finding in check_source(source, "case.py")]


@pytest.mark.parametrize(
    ("ids", "sizes"),
    [
        ('batch["input_ids"]', "pass"),
        ("batch.input_ids", "pass"),
        ("src", "bsz, seq_len = src.shape"),
        ("src", "batch_size, n = src.size()"),
        ("src", "batch_size = src.size(0)"),
        ("src", "seq_len = src.shape[1]"),
    ],
)
def test_ids_shown_batch_first(ids: str, sizes: str) -> None:
    assert codes(ids, sizes) == [("AM801", 14)]


@pytest.mark.parametrize(
    "sizes",
    [
        "pass",  # nothing says which axis is the batch
        "seq_len = src.size(0)",  # the word-language model: [T, B]
        "seq_len, bsz = src.shape",
        "bsz = src.size(1)",
        "bsz, n = src.shape; seq_len = src.size(0)",  # the code says both: unknown
        "x, y = src.shape",  # names that say nothing
    ],
)
def test_ids_not_shown_batch_first(sizes: str) -> None:
    assert codes("src", sizes) == []
