"""AW218: a batch-first input given to a sequence-first ``nn.MultiheadAttention`` (or layer).

The module reads ``[L, B, E]``; given ``[B, L, E]`` it raises nothing and attends across the
batch.  The watch reports it only where the values prove the layout: the query has the shape
``[B, L]`` of the token ids last embedded with a padding index (B != L), and their padding runs
along dim 1 in every item but not along dim 0.  Without such ids, with a batch sorted by length
(both readings fit), or with B == L, it stays silent.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from attention.review import watch
from attention.review.watch_rules import AttentionWatchError

IDS = torch.tensor([[5, 6, 7, 0, 0], [5, 6, 7, 8, 9], [5, 6, 7, 8, 0]])  # [B, T], right padding
SORTED = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 8, 0], [5, 6, 7, 0, 0]])  # longest first


def model(*, batch_first: bool = False, padding_idx: int | None = 0) -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first)
    encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
    return nn.ModuleDict(
        {"embed": nn.Embedding(10, 8, padding_idx=padding_idx), "encoder": encoder}
    )


def codes(run) -> tuple[list[str], torch.Tensor]:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True), watch() as seen:
        out = run()
    assert seen.errors == []
    return [finding.code for finding in seen.findings], out


def test_embedded_ids_batch_first_into_a_sequence_first_encoder() -> None:
    m = model()
    found, out = codes(lambda: m["encoder"](m["embed"](IDS)))
    assert found == ["AW218"]
    assert torch.equal(out, m["encoder"](m["embed"](IDS)))  # the same numbers, unwatched


def test_the_finding_names_the_callers_line_and_strict_raises() -> None:
    m = model()
    with warnings.catch_warnings(record=True), watch() as seen:
        m["encoder"](m["embed"](IDS))
    assert seen.findings[0].location is not None
    assert seen.findings[0].location.startswith(__file__)
    with pytest.raises(AttentionWatchError, match="AW218"), watch(strict=True):
        m["encoder"](m["embed"](IDS))


@pytest.mark.parametrize(
    "case",
    [
        "batch-first-module",
        "transposed",
        "sorted-batch",
        "no-padding-index",
        "sequence-first-ids",
        "no-padding",
    ],
)
def test_a_right_or_unproven_layout_is_silent(case: str) -> None:
    m = model(
        batch_first=case == "batch-first-module",
        padding_idx=None if case == "no-padding-index" else 0,
    )
    ids = {
        "sorted-batch": SORTED,
        "sequence-first-ids": IDS.t(),
        "no-padding": IDS.clamp(min=4),
    }.get(case, IDS)
    if case == "transposed":
        found, _ = codes(lambda: m["encoder"](m["embed"](ids).transpose(0, 1)))
    else:
        found, _ = codes(lambda: m["encoder"](m["embed"](ids)))
    assert found == []


def test_a_square_batch_is_silent() -> None:
    # B == L: a correct transposed input has the ids' shape too, so the shape proves nothing
    ids = torch.tensor([[5, 6, 0, 0], [5, 6, 7, 8], [5, 6, 7, 0], [5, 0, 0, 0]])
    m = model()
    assert codes(lambda: m["encoder"](m["embed"](ids).transpose(0, 1)))[0] == []
