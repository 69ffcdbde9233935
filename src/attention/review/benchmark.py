"""The checker's speed on real trees, beside TorchFix's on the same files.

``python -m attention.review.benchmark --out docs/_data/review-benchmark.json`` times
``python -m attention.review`` on every ``*.py`` of the installed torch and, with
``--transformers DIR`` (the ``transformers/models`` folder of a transformers release, as
``nox -s realcode`` unpacks it), on that tree too.  With ``--torchfix PYTHON`` (an interpreter
whose environment has TorchFix 0.7.0, which pins libcst < 1.6 and so lives in an environment of
its own) it times ``PYTHON -m torchfix`` and the checker on the same fixed sample of each tree
(``--sample`` files spread evenly over the sorted list: TorchFix takes minutes per hundred
files, over a quarter of an hour for a whole tree), in turn: A B A B …, so a machine whose speed
drifts moves both.  Both use every core (``--jobs``); each figure is the median over the rounds,
of the wall time and of the CPU time (user + system of the process and its workers), with the
load average before and after, since other work on the machine moves the wall time.

The goals: transformers' ``models/`` in at most 15 s and torch's sources in at most 10 s of wall
time, on a 2-core machine with nothing else running.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

import attention

__all__ = ["GOALS_S", "main", "sample", "time_command"]

GOALS_S = {"torch": 10.0, "transformers-models": 15.0}
"""Wall-time goals per tree, in seconds, on this project's 2-core reference machine."""


def time_command(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, children included) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def sample(files: list[Path], size: int) -> list[Path]:
    """``size`` files spread evenly over ``files``: the same ones on every run."""
    if size >= len(files):
        return files
    step = len(files) / size
    return [files[int(index * step)] for index in range(size)]


def _median(runs: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "wall_s": round(statistics.median(wall for wall, _ in runs), 2),
        "cpu_s": round(statistics.median(cpu for _, cpu in runs), 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its record."""
    parser = argparse.ArgumentParser(prog="python -m attention.review.benchmark")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--transformers", type=Path, help="a transformers/models folder")
    parser.add_argument("--torchfix", help="a Python whose environment has torchfix 0.7.0")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=100, help="files per tree for TorchFix")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    trees = {"torch": Path(os.path.dirname(torch.__file__))}
    if args.transformers is not None:
        trees["transformers-models"] = args.transformers
    record: dict[str, object] = {
        "package": attention.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "jobs": args.jobs,
        "rounds": args.rounds,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    results: dict[str, object] = {}
    for name, tree in trees.items():
        ours_command = [
            sys.executable,
            "-m",
            "attention.review",
            "--exit-zero",
            "--jobs",
            str(args.jobs),
            str(tree),
        ]
        files = sorted(tree.rglob("*.py"))
        ours = [time_command(ours_command) for _ in range(args.rounds)]
        entry: dict[str, object] = {
            "files": len(files),
            "checker": _median(ours),
            "goal_wall_s": GOALS_S[name],
        }
        if args.torchfix:
            chosen = [str(path) for path in sample(files, args.sample)]
            jobs = ["--jobs", str(args.jobs)]
            ours_sample = [sys.executable, "-m", "attention.review", "--exit-zero", *jobs]
            theirs_sample = [args.torchfix, "-m", "torchfix", *jobs]
            pairs = [
                (time_command([*ours_sample, *chosen]), time_command([*theirs_sample, *chosen]))
                for _ in range(args.rounds)
            ]
            entry["sample"] = {
                "files": len(chosen),
                "checker": _median([pair[0] for pair in pairs]),
                "torchfix": _median([pair[1] for pair in pairs]),
                "wall_ratio": round(statistics.median(a[0] / b[0] for a, b in pairs), 4),
            }
        results[name] = entry
    record["trees"] = results
    record["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
