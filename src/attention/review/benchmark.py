"""The checker's speed on the Python files of the installed torch, beside TorchFix's.

``python -m attention.review.benchmark --out docs/_data/review-benchmark.json`` times
``python -m attention.review`` on every ``*.py`` of the installed torch and on a fixed sample
(every n-th file of the sorted list), each as one process.  With ``--torchfix PYTHON`` (an
interpreter whose environment has TorchFix 0.7.0; it needs libcst < 1.6, so it cannot share
this environment) it also times ``PYTHON -m torchfix --jobs 1`` on the same sample, in the same
run, and records the ratio.  Both are single-process and include their interpreter's start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import torch

import attention
from attention.review.check import could_hold_finding

__all__ = ["main", "sample", "torch_files"]

GOAL = 0.1
"""The checker may take at most a tenth of TorchFix's time on the same files."""


def torch_files() -> list[Path]:
    """Every ``*.py`` file of the installed torch, sorted."""
    return sorted(Path(os.path.dirname(torch.__file__)).rglob("*.py"))


def sample(files: list[Path], size: int) -> list[Path]:
    """``size`` files spread evenly over ``files``: the same ones on every run."""
    if size >= len(files):
        return files
    step = len(files) / size
    return [files[int(index * step)] for index in range(size)]


def _candidate(path: Path) -> bool:
    return could_hold_finding(path.read_text(encoding="utf-8", errors="replace"))


def _time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _ours(files: list[Path]) -> list[str]:
    return [sys.executable, "-m", "attention.review", "--exit-zero", *map(str, files)]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its record."""
    parser = argparse.ArgumentParser(prog="python -m attention.review.benchmark")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--torchfix", help="a Python whose environment has torchfix 0.7.0")
    args = parser.parse_args(argv)
    files = torch_files()
    chosen = sample(files, args.sample)
    record: dict[str, object] = {
        "torch": torch.__version__,
        "package": attention.__version__,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "load_average_1min": round(os.getloadavg()[0], 2),
        "files": len(files),
        "files_parsed": sum(1 for path in files if _candidate(path)),
        "sample": len(chosen),
        "sample_parsed": sum(1 for path in chosen if _candidate(path)),
        "checker_all_s": round(_time(_ours(files)), 2),
    }
    ours = _time(_ours(chosen))
    record["checker_sample_s"] = round(ours, 2)
    if args.torchfix:
        torchfix = [args.torchfix, "-m", "torchfix", "--jobs", "1", *map(str, chosen)]
        theirs = _time(torchfix)
        record["torchfix_sample_s"] = round(theirs, 2)
        ratio = ours / theirs
        record["ratio"] = round(ratio, 4)
        record["goal_ratio"] = GOAL
        record["goal_met"] = ratio <= GOAL
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
