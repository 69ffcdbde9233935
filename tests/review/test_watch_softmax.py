"""The watch on hand-written attention: the softmax of scores and the fills that lead to it."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention.review.watch import watch
from attention.review.watch_rules import RULES, AttentionWatchWarning

NEG_INF = float("-inf")
LOWEST = torch.finfo(torch.float32).min


def keep(all_padding: bool = False) -> Tensor:
    """[B, 1, 1, S] True = real token; item 1 has two padded keys (or none real)."""
    allowed = torch.ones(2, 1, 1, 4, dtype=torch.bool)
    allowed[1, ..., 2:] = False
    if all_padding:
        allowed[1] = False
    return allowed


def scores(dtype: torch.dtype = torch.float32, nan_key: bool = False) -> Tensor:
    torch.manual_seed(0)
    q = torch.randn(2, 2, 4, 8)  # [B, H, L, D]
    k = torch.randn(2, 2, 4, 8)  # [B, H, S, D]
    if nan_key:
        k[1, :, 3] = float("nan")  # a padded key's vector holds NaN
    return ((q @ k.transpose(-2, -1)) / 8**0.5).to(dtype)  # [B, H, L, S]


def filled(
    fill: float = NEG_INF,
    all_padding: bool = False,
    dim: int = -1,
    softmax: Callable[[Tensor, int], Tensor] = lambda s, d: s.softmax(d),
) -> Callable[[], Tensor]:
    def call() -> Tensor:
        return softmax(scores().masked_fill(~keep(all_padding), fill), dim)

    return call


def added(nan_key: bool = False, twice: bool = False) -> Callable[[], Tensor]:
    def call() -> Tensor:
        s = scores(torch.bfloat16, nan_key)
        low = torch.finfo(torch.bfloat16).min
        padding = torch.zeros(2, 1, 1, 4, dtype=torch.bfloat16).masked_fill(~keep(True), low)
        causal = torch.zeros(4, 4, dtype=torch.bfloat16).masked_fill(
            ~torch.ones(4, 4, dtype=torch.bool).tril(), low
        )
        s = s + padding + causal if twice else s + causal
        return F.softmax(s, dim=-1, dtype=torch.float32)

    return call


def nan_scores(mask_by_fill: bool) -> Callable[[], Tensor]:
    def call() -> Tensor:
        s = scores(nan_key=True)
        if mask_by_fill:
            return s.masked_fill(~keep(), NEG_INF).softmax(-1)  # replaces the NaN
        additive = torch.zeros(2, 1, 1, 4).masked_fill(~keep(), NEG_INF)
        return (s + additive).softmax(-1)  # NaN + -inf is NaN

    return call


def additive(all_padding: bool) -> Callable[[], Tensor]:
    def call() -> Tensor:
        mask = torch.zeros(2, 1, 1, 4).masked_fill(~keep(all_padding), NEG_INF)  # 0 / -inf
        return (scores() + mask).softmax(-1)  # an addition: only the values tell

    return call


def where(all_padding: bool) -> Callable[[], Tensor]:
    return lambda: torch.softmax(torch.where(keep(all_padding), scores(), NEG_INF), -1)


def with_cache(diagonal: int) -> Callable[[], Tensor]:
    """3 new queries over 5 cached + 3 new keys, the causal mask added: [1, 2, 3, 8]."""

    def call() -> Tensor:
        torch.manual_seed(0)
        s = torch.randn(1, 2, 3, 8)
        return (s + torch.full((3, 8), NEG_INF).triu(diagonal)).softmax(-1)

    return call


def drifted(fill: float) -> Callable[[], Tensor]:
    """Real keys' scores near -3e4, padded keys' near 0, an additive padding mask of ``fill``."""

    def call() -> Tensor:
        s = scores() - 3e4
        s[..., 2:] += 3e4
        return (s + (~keep()).float() * fill).softmax(-1)

    return call


def subtracted(fill: float, all_padding: bool = False) -> Callable[[], Tensor]:
    """``scores - fill · (1 - keep)``: the mask subtracted, masked where it is largest."""

    def call() -> Tensor:
        return (scores() - fill * (1 - keep(all_padding).float())).softmax(-1)

    return call


def in_place(mask: Callable[[], Tensor], op: str) -> Callable[[], Tensor]:
    """``s += mask`` (or ``-=``): the same tensor, changed in place."""

    def call() -> Tensor:
        s = scores()
        if op == "+=":
            s += mask()
        else:
            s -= mask()
        return s.softmax(-1)

    return call


def zero_one() -> Tensor:
    return (~keep()).float()  # 1.0 where padding: a Boolean mask turned float


def neg_inf() -> Tensor:
    return torch.zeros(2, 1, 1, 4).masked_fill(~keep(), NEG_INF)


def self_attention(dim: int, product: str = "@") -> Callable[[], Tensor]:
    """Scores q @ kᵀ / √d of self-attention ([B, L, D], L = S = 4), softmaxed over ``dim``."""

    def call() -> Tensor:
        torch.manual_seed(0)
        q, k = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
        if product == "bmm":
            s = torch.bmm(q, k.transpose(1, 2)) * 8**-0.5
        elif product == "matmul":
            s = torch.matmul(q, k.transpose(-2, -1)) / torch.tensor(8.0).sqrt()
        else:
            s = q @ k.transpose(-2, -1) / 8**0.5
        return s.softmax(dim)

    return call


def branches(identical: bool) -> Callable[[], Tensor]:
    """Two branch logits [B, 1, C] concatenated on dim 1 and softmaxed there."""

    def call() -> Tensor:
        torch.manual_seed(0)
        z = torch.randn(2, 1, 4)
        other = z if identical else z + torch.randn(2, 1, 4)
        return torch.softmax(torch.cat([z, other], dim=1), dim=1)

    return call


# (rule, wrong call, its correct twin)
CASES: dict[str, tuple[str, Callable[[], object], Callable[[], object]]] = {
    "NaN key added, not filled": ("AW208", nan_scores(False), nan_scores(True)),
    "row all -inf": ("AW209", filled(all_padding=True), filled()),
    "row all -inf, torch.where": ("AW209", where(True), where(False)),
    "row all -inf, additive mask": ("AW209", additive(True), additive(False)),
    "row all one finite fill": ("AW209", filled(-1e9, all_padding=True), filled(-1e9)),
    "two finfo.min summed": ("AW209", added(twice=True), added()),
    "1e-9 for -1e9": ("AW210", filled(1e-9), filled(-1e9)),
    "-1e4 above scores of -3e4": (  # TransformerLens #318: scores below the fill constant
        "AW210",
        lambda: (scores() - 3e4).masked_fill(~keep(), -1e4).softmax(-1),
        lambda: (scores() - 3e4).masked_fill(~keep(), torch.finfo(torch.float32).min).softmax(-1),
    ),
    "softmax over the heads": ("AW211", filled(dim=1), filled(dim=-1)),
    "nn.Softmax over the queries": (
        "AW211",
        filled(softmax=lambda s, d: nn.Softmax(dim=2)(s)),
        filled(softmax=lambda s, d: nn.Softmax(dim=3)(s)),
    ),
    "softmax over a size-1 axis": (
        "AW212",
        lambda: scores()[:, :1, 0].softmax(dim=1),  # attention pooling over [B, 1, T]
        lambda: scores()[:, :1, 0].softmax(dim=2),
    ),
    "a decode step with one key is not a size-1 mistake": (
        "AW212",
        lambda: nn.Softmax(dim=0)(scores()[0, 0, :1]),  # a [B·L, S] view over dim 0
        lambda: scores()[..., :1, :1].softmax(dim=-1),  # L = S = 1: the one key gets 1.0
    ),
    "added causal mask, top-left with a cache": ("AW213", with_cache(1), with_cache(6)),
    "sdpa causal mask, top-left with a cache": (
        "AW213",
        lambda: F.scaled_dot_product_attention(
            scores()[..., :3, :], scores(), scores(), attn_mask=torch.ones(3, 4).bool().tril()
        ),
        lambda: F.scaled_dot_product_attention(
            scores()[..., :3, :], scores(), scores(), attn_mask=torch.ones(3, 4).bool().tril(1)
        ),
    ),
    "0/1 mask added to the scores": (
        "AW204",
        lambda: (scores() + (~keep()).float()).softmax(-1),
        lambda: (scores() + torch.zeros(2, 1, 1, 4).masked_fill(~keep(), NEG_INF)).softmax(-1),
    ),
    "added -1e4 above scores of -3e4": (
        "AW210",
        drifted(-1e4),
        drifted(torch.finfo(torch.float32).min),
    ),
    "log_softmax over the heads": (
        "AW211",
        filled(softmax=lambda s, d: F.log_softmax(s, dim=1)),
        filled(softmax=lambda s, d: F.log_softmax(s, dim=-1)),
    ),
    "mask subtracted, an item all padding": (
        "AW209",
        subtracted(1e4, all_padding=True),
        subtracted(1e4),
    ),
    "mask subtracted, a weak constant": ("AW210", subtracted(1.0), subtracted(1e9)),
    "torch.sub of a weak mask": (
        "AW210",
        lambda: torch.sub(scores(), (~keep()).float()).softmax(-1),
        lambda: torch.sub(scores(), (~keep()).float() * 1e9).softmax(-1),
    ),
    "0/1 mask added in place": ("AW204", in_place(zero_one, "+="), in_place(neg_inf, "+=")),
    "0/1 mask added by Tensor.add": (
        "AW204",
        lambda: scores().add(zero_one()).softmax(-1),
        lambda: scores().add(neg_inf()).softmax(-1),
    ),
    "weak mask subtracted in place": (
        "AW210",
        in_place(zero_one, "-="),
        in_place(lambda: zero_one() * 1e9, "-="),
    ),
    "mask built by torch.where(keep, 0, min), an item all padding": (
        "AW209",
        lambda: (scores() + torch.where(keep(True), 0.0, LOWEST)).softmax(-1),
        lambda: (scores() + torch.where(keep(), 0.0, LOWEST)).softmax(-1),
    ),
    "mask built by torch.where(padding, 1.0, 0.0)": (
        "AW204",
        lambda: (scores() + torch.where(~keep(), 1.0, 0.0)).softmax(-1),
        lambda: (scores() + torch.where(~keep(), NEG_INF, 0.0)).softmax(-1),
    ),
    "softmax over the queries of q @ kᵀ": ("AW216", self_attention(1), self_attention(-1)),
    "softmax over the queries of torch.bmm": (
        "AW216",
        self_attention(1, "bmm"),
        self_attention(2, "bmm"),
    ),
    "softmax over the queries, scaled by a tensor": (
        "AW216",
        self_attention(-2, "matmul"),
        self_attention(-1, "matmul"),
    ),
    "two identical branches": ("AW217", branches(True), branches(False)),
    "scores broadcast along the keys": (
        "AW217",
        lambda: scores()[..., :1].expand(-1, -1, -1, 4).softmax(-1),
        lambda: scores().softmax(-1),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_softmax_rule_fires_on_its_case_and_not_on_its_twin(case: str) -> None:
    code, wrong, right = CASES[case]
    with pytest.warns(RULES[code].warning), watch() as seen:
        wrong()
    assert {f.code for f in seen.findings} == {code}, [str(f) for f in seen.findings]
    with warnings.catch_warnings():
        warnings.simplefilter("error", AttentionWatchWarning)
        with watch() as quiet:
            right()
    assert quiet.findings == [], [str(f) for f in quiet.findings]
    assert seen.errors == quiet.errors == []


@pytest.mark.parametrize("case", list(CASES))
def test_a_softmax_finding_cites_its_rules_rows_and_the_callers_line(case: str) -> None:
    code, wrong, _ = CASES[case]
    with watch(warn=False) as seen:
        wrong()
    for finding in seen.findings:
        assert set(finding.rows) <= set(RULES[code].rows)
        assert finding.location is not None
        assert finding.location.startswith(__file__), finding.location


@pytest.mark.parametrize("case", list(CASES))
def test_watched_softmax_results_are_bit_identical(case: str) -> None:
    _, wrong, right = CASES[case]
    for call in (wrong, right):
        plain = call()
        with watch(warn=False):
            seen = call()
        assert isinstance(plain, Tensor)
        assert isinstance(seen, Tensor)
        assert torch.equal(plain.isnan(), seen.isnan())
        assert torch.equal(plain.nan_to_num(), seen.nan_to_num())


def test_the_row_named_is_the_one_with_no_key() -> None:
    with watch(warn=False) as seen:
        filled(all_padding=True)()
    assert "batch item 1, head 0, query 0 (and 7 more rows)" in seen.findings[0].seen
    assert "NaN" in seen.findings[0].seen


def test_a_fill_changed_in_place_afterwards_is_not_followed() -> None:
    with watch(warn=False) as seen:
        s = scores().masked_fill(~keep(), 1e-9)
        s.mul_(1.0)  # the version moves: which entries were filled is no longer known
        s.softmax(-1)
    assert seen.findings == []


def test_softmax_of_a_classifier_or_an_integer_tensor_is_left_alone() -> None:
    with watch(warn=False) as seen:
        torch.randn(4, 10).softmax(-1)
        torch.zeros(3).softmax(0)
        F.softmax(torch.randn(2, 3), dim=1)
    assert seen.findings == []
    assert seen.errors == []


def test_cross_attention_normalised_over_its_queries_is_left_alone() -> None:
    """Slot attention and co-attention normalise over the queries on purpose (L != S)."""
    torch.manual_seed(0)
    slots, inputs = torch.randn(2, 3, 8), torch.randn(2, 6, 8)
    with watch(warn=False) as seen:
        (slots @ inputs.transpose(-2, -1)).softmax(dim=1)  # [B, 3 slots, 6 inputs]
    assert seen.findings == []


def test_constant_scores_are_not_uniform_by_mistake() -> None:
    """Zeros everywhere (a query initialised to zero): nothing to tell the keys apart by."""
    with watch(warn=False) as seen:
        torch.zeros(2, 2, 4, 4).softmax(-1)
        F.log_softmax(torch.zeros(3, 5), dim=-1)
    assert seen.findings == []
