"""The checker's speed record (docs/_data/review-benchmark.json), written by ``nox -s bench``.

The benchmark itself is opt-in (it needs TorchFix's environment and transformers' sources, and
takes minutes); this checks that the committed record is whole: both trees, the checker's and
TorchFix's figures on the same sample, the goals it is read against.
"""

from __future__ import annotations

import json
from pathlib import Path

from attention.review.benchmark import GOALS_S, sample

RECORD = Path(__file__).parents[2] / "docs" / "_data" / "review-benchmark.json"


def test_the_record_times_both_trees_beside_torchfix() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert set(record["trees"]) == set(GOALS_S)
    assert record["rounds"] >= 3
    assert len(record["load_average_before"]) == len(record["load_average_after"]) == 3
    for name, tree in record["trees"].items():
        assert tree["files"] > 2000, name
        assert tree["goal_wall_s"] == GOALS_S[name]
        assert tree["checker"]["wall_s"] > 0
        assert tree["checker"]["cpu_s"] > 0
        same = tree["sample"]
        assert same["files"] == 100
        assert same["torchfix"]["wall_s"] > 0
        # the ratio is the checker's time over TorchFix's on the same files, pair by pair
        assert 0 < same["wall_ratio"] < 10


def test_the_sample_is_the_same_files_every_time() -> None:
    files = [Path(f"{index:04}.py") for index in range(250)]
    chosen = sample(files, 100)
    assert len(chosen) == 100
    assert chosen == sample(files, 100)
    assert chosen[0] == files[0]
    assert len(set(chosen)) == 100
    assert sample(files[:50], 100) == files[:50]
