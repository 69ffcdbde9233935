"""The cost model against torch's own FLOP counter on real modules."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from attention import MultiHeadAttention, attention_cost


def _count(module: nn.Module, *inputs: torch.Tensor) -> int:
    with FlopCounterMode(display=False) as counter:
        module(*inputs)
    return counter.get_total_flops()


@pytest.mark.parametrize(
    ("batch", "seq_len", "d_model", "num_heads"),
    [(1, 8, 16, 2), (2, 32, 16, 4), (3, 5, 24, 3), (1, 64, 8, 1)],
)
def test_attention_layer_flops_match_flop_counter(
    batch: int, seq_len: int, d_model: int, num_heads: int
) -> None:
    cost = attention_cost(batch=batch, seq_len=seq_len, d_model=d_model, num_heads=num_heads)
    module = MultiHeadAttention(d_model, num_heads, batch_first=True)
    x = torch.randn(batch, seq_len, d_model)
    assert _count(module, x, x, x) == cost.projection_flops + cost.attention_matrix_flops


@pytest.mark.parametrize(("d_model", "ffn_dim"), [(16, 64), (24, 40)])
def test_ffn_flops_match_flop_counter(d_model: int, ffn_dim: int) -> None:
    cost = attention_cost(batch=2, seq_len=7, d_model=d_model, num_heads=1, ffn_dim=ffn_dim)
    ffn = nn.Sequential(nn.Linear(d_model, ffn_dim), nn.ReLU(), nn.Linear(ffn_dim, d_model))
    assert _count(ffn, torch.randn(2, 7, d_model)) == cost.ffn_flops


def test_flop_counter_sees_torch_multihead_projections() -> None:
    # nn.MultiheadAttention on CPU computes its scores with the fused kernel, which the counter
    # does not see; its projections are counted like ours.
    cost = attention_cost(batch=1, seq_len=16, d_model=32, num_heads=4)
    module = nn.MultiheadAttention(32, 4, batch_first=True)
    x = torch.randn(1, 16, 32)
    with FlopCounterMode(display=False) as counter:
        module(x, x, x, need_weights=False)
    assert counter.get_total_flops() >= cost.projection_flops


def test_score_memory_grows_with_t_squared_and_heads() -> None:
    small = attention_cost(batch=1, seq_len=1024, d_model=512, num_heads=8)
    long = attention_cost(batch=1, seq_len=2048, d_model=512, num_heads=8)
    more_heads = attention_cost(batch=1, seq_len=1024, d_model=512, num_heads=16)
    assert long.score_bytes == 4 * small.score_bytes
    assert more_heads.score_bytes == 2 * small.score_bytes
    assert more_heads.total_flops == small.total_flops
    assert small.score_bytes == 8 * 1024 * 1024 * 4


@pytest.mark.parametrize(
    ("seq_len", "expected"),
    [(256, "ffn"), (2047, "ffn"), (2049, "attention_matrix"), (8192, "attention_matrix")],
)
def test_dominant_term_crosses_over_at_t_equal_4d(seq_len: int, expected: str) -> None:
    # with f = 4d: attention matrix 4BT²d vs FFN 16BTd², equal at T = 4d = 2048
    cost = attention_cost(batch=1, seq_len=seq_len, d_model=512, num_heads=8)
    assert cost.dominant() == expected


def test_a_tie_goes_to_the_attention_matrix() -> None:
    cost = attention_cost(batch=1, seq_len=2048, d_model=512, num_heads=8)
    assert cost.attention_matrix_flops == cost.ffn_flops
    assert cost.dominant() == "attention_matrix"


def test_projection_and_attention_cross_at_t_equal_2d() -> None:
    cost = attention_cost(batch=1, seq_len=1024, d_model=512, num_heads=8)
    assert cost.attention_matrix_flops == cost.projection_flops


@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch": 0, "seq_len": 4, "d_model": 8, "num_heads": 2},
        {"batch": 1, "seq_len": 4, "d_model": 8, "num_heads": 3},
        {"batch": 1, "seq_len": 4, "d_model": 8, "num_heads": 2, "ffn_dim": 0},
    ],
)
def test_bad_arguments(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=r"must be"):
        attention_cost(**kwargs)
