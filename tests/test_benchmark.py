"""The benchmark's bookkeeping: peak memory of a fresh process, ratios of interleaved rounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from attention import benchmark
from attention.benchmark import Figure, Shape, goals

RECORD = Path(__file__).resolve().parents[1] / "docs" / "_data" / "benchmark.json"
ROW_KEYS = {"impl", "batch", "heads", "d_k", "length", "masked", "seconds_median"}
ROW_KEYS |= {"seconds_runs", "extra_peak_bytes_median", "extra_peak_bytes_runs"}


def test_a_fresh_process_reports_its_own_peak_not_its_parents() -> None:
    # getrusage's maximum survives exec: a child of a process that once held 800 MB would
    # report at least that much; the child resets its peak before the call instead.
    held = torch.ones(200_000_000)  # 800 MB in this (parent) process
    held.add_(1)  # touch every page
    extra = benchmark._memory_in_fresh_process("tiled", "forward", Shape(1, 1, 256, 8, True))
    del held
    assert 0 < extra < 64 * 2**20


def test_a_ratio_is_the_median_of_the_per_round_ratios() -> None:
    shape = Shape(1, 8, 4096, 64, True)
    # rounds 2 and 3 ran while the machine was loaded: both sides slowed down together
    tiled = Figure("tiled", "forward_backward", shape, (1.0, 4.0, 6.0), (10.0,))
    torch_row = Figure("torch_default", "forward_backward", shape, (1.0, 2.0, 3.0), (80.0,))
    dense = Figure("dense", "forward_backward", shape, (1.0, 1.0, 1.0), (100.0,))
    by_name = {goal.name: goal for goal in goals([], [tiled, torch_row, dense], [])}
    time_goal = by_name["tiled_forward_backward_time_vs_torch_default_T4096"]
    assert time_goal.by_mask == {"none": None, "causal": 2.0}  # not 11/6, the ratio of sums
    assert time_goal.met is True
    memory_goal = by_name["tiled_forward_backward_memory_vs_dense_T4096"]
    assert memory_goal.ratio == pytest.approx(0.1)
    assert memory_goal.as_json()["target"] == "<= 0.125"


def test_the_committed_record_keeps_the_row_layout_the_page_reads() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    for part in ("sweep", "forward_backward", "dense_vs_math"):
        assert record[part], part
        for row in record[part]:
            assert set(row) >= ROW_KEYS, (part, ROW_KEYS - set(row))
    assert {row["pass"] for row in record["sweep"]} == {"forward"}
    assert {row["pass"] for row in record["forward_backward"]} == {"forward_backward"}
    assert record["schema"] == benchmark.SCHEMA
    assert set(record["goals"]) == {goal.name for goal in goals([], [], [])}
