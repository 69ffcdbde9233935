"""Measure dense, tiled and torch's own attention kernels: time and extra peak memory.

``python -m attention.benchmark --out record.json`` writes a JSON record with the machine, its load,
the torch version and the date.  Two passes are measured: ``forward`` (one call) and
``forward_backward`` (the call plus the gradients of query, key and value for a given output
gradient).

* **Time**: for one shape, every implementation is timed with
  :class:`torch.utils.benchmark.Timer` (``blocked_autorange``: as many calls per block and blocks as
  fit in the minimum run time, after a warm-up), one implementation after the other, and this
  round is repeated; a figure is the median over the rounds.  A ratio is the median of the
  per-round ratios: interleaving the implementations in one process makes a ratio robust to a
  machine whose load changes while it runs, where absolute times are not.
* **Memory**: the growth of the peak resident size during the first call at that size, in a fresh
  Python process (so one run's allocations cannot hide another's peak) whose allocator returns
  every large block on release.

It never fails on timing noise: the goals it reports are ratios to read, not assertions.

Implementations measured (shapes ``B, H, T, D``; float32):

* ``torch_default`` -- ``F.scaled_dot_product_attention`` with ``is_causal``: torch picks its
  fastest CPU kernel (a fused, flash-style kernel);
* ``torch_math`` -- the same call restricted to ``SDPBackend.MATH`` (explicit, materialised scores);
* ``dense`` -- :func:`attention.scaled_dot_product_attention` on ``[B·H, T, D]``;
* ``tiled`` -- :func:`attention.tiled_attention` on ``[B, H, T, D]``.

Masked runs use the causal mask: ``is_causal=True`` for torch's kernels and
:func:`attention.causal_allowed` (``[T, T]``, True = may attend) for the package.

The record's layout (``"schema": 2``): ``sweep`` holds the forward figures and
``forward_backward`` the forward + backward ones, each a list of flat rows with the keys ``impl,
pass, batch, heads, d_k, length, masked, seconds_median, seconds_runs, extra_peak_bytes_median,
extra_peak_bytes_runs``; ``dense_vs_math`` holds both passes; ``goals`` maps a name to ``ratio,
by_mask, target, met``.  Schema 1 (before the backward pass was measured) had the same ``sweep``
rows without ``pass``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils.benchmark import Timer

from attention.masks import causal_allowed
from attention.scaled_dot_product import scaled_dot_product_attention
from attention.tiled import tiled_attention

__all__ = [
    "IMPLEMENTATIONS",
    "PASSES",
    "Figure",
    "Goal",
    "Record",
    "Shape",
    "goals",
    "main",
    "measure_memory",
    "time_interleaved",
]

SCHEMA = 2
IMPLEMENTATIONS = ("torch_default", "torch_math", "dense", "tiled")
"""Names of the implementations that can be measured."""
PASSES = ("forward", "forward_backward")
"""What one timed call does: the attention call, or the call and its gradients."""

SWEEP_LENGTHS = (512, 1024, 2048, 4096)
SWEEP_IMPLEMENTATIONS = ("torch_default", "dense", "tiled")


@dataclass(frozen=True)
class Shape:
    """One problem size: ``[batch, heads, length, d_k]`` in float32, causal or not."""

    batch: int
    heads: int
    length: int
    d_k: int
    masked: bool


SWEEP_SHAPE = Shape(batch=1, heads=8, length=0, d_k=64, masked=False)  # length set per row
DENSE_VS_MATH = Shape(batch=4, heads=1, length=1024, d_k=64, masked=True)


@dataclass(frozen=True)
class Figure:
    """The measurements of one implementation, pass and shape."""

    impl: str
    pass_name: str
    shape: Shape
    seconds_runs: tuple[float, ...]  # one Timer median per interleaved round
    extra_peak_bytes_runs: tuple[float, ...]  # one per fresh process

    @property
    def seconds_median(self) -> float:
        """Median over the interleaved rounds."""
        return statistics.median(self.seconds_runs)

    @property
    def extra_peak_bytes_median(self) -> float:
        """Median over the fresh processes."""
        return statistics.median(self.extra_peak_bytes_runs)

    def as_json(self) -> dict[str, object]:
        """The flat row stored in the record (see the module docstring)."""
        return {
            "impl": self.impl,
            "pass": self.pass_name,
            "batch": self.shape.batch,
            "heads": self.shape.heads,
            "d_k": self.shape.d_k,
            "length": self.shape.length,
            "masked": self.shape.masked,
            "seconds_median": self.seconds_median,
            "seconds_runs": list(self.seconds_runs),
            "extra_peak_bytes_median": self.extra_peak_bytes_median,
            "extra_peak_bytes_runs": list(self.extra_peak_bytes_runs),
        }


@dataclass(frozen=True)
class Goal:
    """A ratio and its limit; ``ratio`` is the worst mask case, None when it was not measured."""

    name: str
    by_mask: dict[str, float | None]
    limit: float

    @property
    def ratio(self) -> float | None:
        """The worst (largest) measured ratio over the mask cases."""
        measured = [value for value in self.by_mask.values() if value is not None]
        return max(measured) if measured else None

    @property
    def met(self) -> bool | None:
        """Whether the worst ratio is within the limit; None when nothing was measured."""
        return None if self.ratio is None else self.ratio <= self.limit

    def as_json(self) -> dict[str, object]:
        """The record's goal entry: ratio, by_mask, target, met."""
        return {
            "ratio": self.ratio,
            "by_mask": self.by_mask,
            "target": f"<= {self.limit}",
            "met": self.met,
        }


@dataclass(frozen=True)
class Record:
    """Everything one benchmark run measured, with where and when."""

    machine: dict[str, object]
    rounds: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    forward: list[Figure]
    forward_backward: list[Figure]
    dense_vs_math: list[Figure]
    goals: list[Goal] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        """The JSON record (schema 2, see the module docstring)."""
        return {
            "schema": SCHEMA,
            "date": dt.date.today().isoformat(),
            "torch": torch.__version__,
            "python": platform.python_version(),
            "machine": self.machine,
            "load_average": {"before": list(self.load_before), "after": list(self.load_after)},
            "dtype": "float32",
            "timer": "torch.utils.benchmark.Timer.blocked_autorange",
            "repeats": self.rounds,
            "sweep": [figure.as_json() for figure in self.forward],
            "forward_backward": [figure.as_json() for figure in self.forward_backward],
            "dense_vs_math": [figure.as_json() for figure in self.dense_vs_math],
            "goals": {goal.name: goal.as_json() for goal in self.goals},
        }


def _inputs(shape: Shape, grad: bool, three_d: bool) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    generator = torch.Generator().manual_seed(0)
    size: tuple[int, ...] = (shape.batch, shape.heads, shape.length, shape.d_k)
    if three_d:
        size = (shape.batch * shape.heads, shape.length, shape.d_k)
    q, k, v, d_out = (torch.randn(size, generator=generator) for _ in range(4))
    for x in (q, k, v):
        x.requires_grad_(grad)
    return q, k, v, d_out


def runner(impl: str, pass_name: str, shape: Shape) -> Callable[[], object]:
    """The call to time or measure: one attention call, or one call and its three gradients."""
    if impl not in IMPLEMENTATIONS:
        raise ValueError(f"impl must be one of {IMPLEMENTATIONS}, got {impl!r}")
    if pass_name not in PASSES:
        raise ValueError(f"pass_name must be one of {PASSES}, got {pass_name!r}")
    grad = pass_name == "forward_backward"
    q, k, v, d_out = _inputs(shape, grad, three_d=impl == "dense")  # [B, H, T, D] or [B·H, T, D]
    masked = shape.masked
    allowed = causal_allowed(shape.length) if masked else None  # [T, T], True = may attend

    def attend() -> Tensor:
        if impl == "torch_default":
            return F.scaled_dot_product_attention(q, k, v, is_causal=masked)
        if impl == "torch_math":
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
                return F.scaled_dot_product_attention(q, k, v, is_causal=masked)
        if impl == "dense":
            return scaled_dot_product_attention(q, k, v, allowed)[0]
        return tiled_attention(q, k, v, allowed)

    if not grad:
        return attend
    return lambda: torch.autograd.grad(attend(), (q, k, v), d_out)


def time_interleaved(
    impls: Sequence[str], pass_name: str, shape: Shape, rounds: int, min_run_time: float
) -> dict[str, tuple[float, ...]]:
    """Per implementation, one ``blocked_autorange`` median (seconds) per round, interleaved.

    >>> times = time_interleaved(["tiled", "dense"], "forward", Shape(1, 1, 64, 8, True), 2, 0.01)
    >>> sorted(times), len(times["tiled"])
    (['dense', 'tiled'], 2)
    """
    calls = {impl: runner(impl, pass_name, shape) for impl in impls}
    runs: dict[str, list[float]] = {impl: [] for impl in impls}
    for _ in range(rounds):
        for impl, call in calls.items():
            timer = Timer("call()", globals={"call": call}, num_threads=torch.get_num_threads())
            runs[impl].append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return {impl: tuple(values) for impl, values in runs.items()}


def _reset_peak_rss() -> int:
    """Reset the peak resident size to the current one (Linux) and return it in bytes.

    ``getrusage``'s maximum survives ``exec``: a process started by a large parent would report
    the parent's peak.  Writing 5 to ``/proc/self/clear_refs`` resets ``VmHWM`` instead.
    """
    Path("/proc/self/clear_refs").write_text("5")
    return _peak_rss()


def _peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # reported in kB
    raise RuntimeError("no VmHWM in /proc/self/status: peak memory needs Linux")


def measure_memory(impl: str, pass_name: str, shape: Shape) -> float:
    """Growth of this process's peak resident size (bytes) during the first call at ``shape``.

    A small warm-up call first loads the kernels.  :func:`run` calls this in fresh processes whose
    allocator returns every large block on release, so the peak is what the call needed at once.

    >>> measure_memory("tiled", "forward_backward", Shape(1, 1, 64, 8, True)) >= 0
    True
    """
    warm = Shape(shape.batch, shape.heads, 64, shape.d_k, shape.masked)
    runner(impl, pass_name, warm)()
    call = runner(impl, pass_name, shape)
    before = _reset_peak_rss()
    call()
    return float(_peak_rss() - before)


def _memory_in_fresh_process(impl: str, pass_name: str, shape: Shape) -> float:
    one = {"impl": impl, "pass": pass_name, **shape.__dict__}
    arguments = [sys.executable, "-m", "attention.benchmark", "--one", json.dumps(one)]
    # A fixed mmap threshold makes glibc return every large block to the system when it is freed,
    # so the peak resident size measures what the call needed at once, for every implementation
    # alike, rather than what the allocator kept cached.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}
    done = subprocess.run(arguments, check=True, capture_output=True, text=True, env=env)
    return float(json.loads(done.stdout))


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _find(figures: Sequence[Figure], impl: str, length: int, masked: bool) -> Figure | None:
    for figure in figures:
        if figure.impl == impl and (figure.shape.length, figure.shape.masked) == (length, masked):
            return figure
    return None


def _ratio(numerator: Figure | None, denominator: Figure | None, memory: bool) -> float | None:
    """Median of the per-round time ratios (interleaved rounds), or the memory ratio."""
    if numerator is None or denominator is None:
        return None
    if memory:
        return numerator.extra_peak_bytes_median / denominator.extra_peak_bytes_median
    pairs = zip(numerator.seconds_runs, denominator.seconds_runs, strict=True)
    return statistics.median(top / bottom for top, bottom in pairs)


def goals(
    forward: Sequence[Figure], forward_backward: Sequence[Figure], dense_vs_math: Sequence[Figure]
) -> list[Goal]:
    """The ratios the benchmark page reports, each with its limit (worst mask case).

    >>> shape = Shape(1, 8, 4096, 64, False)
    >>> rows = [Figure("tiled", "forward", shape, (3.0, 2.0, 4.0), (1.0,)),
    ...         Figure("torch_default", "forward", shape, (2.0, 2.0, 2.0), (1.0,))]
    >>> first = goals(rows, [], [])[0]
    >>> first.name, first.ratio, first.met      # median of 1.5, 1.0, 2.0
    ('tiled_time_vs_torch_default_T4096', 1.5, True)
    >>> goals(rows, [], [])[1].met is None      # forward + backward was not measured
    True
    """

    def by_mask(
        figures: Sequence[Figure], numerator: str, denominator: str, memory: bool = False
    ) -> dict[str, float | None]:
        return {
            name: _ratio(
                _find(figures, numerator, 4096, masked),
                _find(figures, denominator, 4096, masked),
                memory,
            )
            for name, masked in (("none", False), ("causal", True))
        }

    math_pair = [f for f in dense_vs_math if f.pass_name == "forward"]
    length, masked = DENSE_VS_MATH.length, DENSE_VS_MATH.masked
    return [
        Goal("tiled_time_vs_torch_default_T4096", by_mask(forward, "tiled", "torch_default"), 1.5),
        Goal(
            "tiled_forward_backward_time_vs_torch_default_T4096",
            by_mask(forward_backward, "tiled", "torch_default"),
            2.0,
        ),
        Goal(
            "tiled_forward_backward_memory_vs_dense_T4096",
            by_mask(forward_backward, "tiled", "dense", memory=True),
            0.125,
        ),
        Goal(
            "dense_time_vs_torch_math_B4_T1024_causal",
            {
                "causal": _ratio(
                    _find(math_pair, "dense", length, masked),
                    _find(math_pair, "torch_math", length, masked),
                    memory=False,
                )
            },
            1.1,
        ),
    ]


def _measure(
    impls: Sequence[str], pass_name: str, shape: Shape, rounds: int, min_run_time: float
) -> list[Figure]:
    times = time_interleaved(impls, pass_name, shape, rounds, min_run_time)
    figures = []
    for impl in impls:
        memory = (_memory_in_fresh_process(impl, pass_name, shape),)
        figures.append(Figure(impl, pass_name, shape, times[impl], memory))
        print(_describe(figures[-1]), file=sys.stderr, flush=True)
    return figures


def run(lengths: Sequence[int], rounds: int, min_run_time: float = 0.5) -> Record:
    """Run the whole benchmark and return the record (see the module docstring)."""
    load_before = os.getloadavg()
    sweep: dict[str, list[Figure]] = {name: [] for name in PASSES}
    for pass_name in PASSES:
        for length in lengths:
            for masked in (False, True):
                shape = Shape(SWEEP_SHAPE.batch, SWEEP_SHAPE.heads, length, SWEEP_SHAPE.d_k, masked)
                sweep[pass_name] += _measure(
                    SWEEP_IMPLEMENTATIONS, pass_name, shape, rounds, min_run_time
                )
    pair = []
    for pass_name in PASSES:
        pair += _measure(
            ("dense", "torch_math"), pass_name, DENSE_VS_MATH, max(rounds, 5), min_run_time
        )
    machine: dict[str, object] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "platform": platform.platform(),
    }
    return Record(
        machine=machine,
        rounds=rounds,
        load_before=load_before,
        load_after=os.getloadavg(),
        forward=sweep["forward"],
        forward_backward=sweep["forward_backward"],
        dense_vs_math=pair,
        goals=goals(sweep["forward"], sweep["forward_backward"], pair),
    )


def _describe(figure: Figure) -> str:
    mask = "causal" if figure.shape.masked else "none"
    mib = figure.extra_peak_bytes_median / 2**20
    return (
        f"{figure.impl:>13}  {figure.pass_name:<16}  T={figure.shape.length:>5}  mask={mask:<6}  "
        f"{figure.seconds_median * 1000:9.1f} ms  {mib:9.1f} MiB extra peak"
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--out PATH`` writes the record; ``--quick`` runs a small sweep."""
    parser = argparse.ArgumentParser(prog="python -m attention.benchmark", description=__doc__)
    parser.add_argument("--out", type=Path, help="write the JSON record here")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    parser.add_argument("--min-run-time", type=float, default=0.5, help="seconds per timing")
    parser.add_argument("--quick", action="store_true", help="T = 512 and 1024 only")
    parser.add_argument(
        "--lengths", type=int, nargs="+", help=f"T values (default {SWEEP_LENGTHS})"
    )
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one = json.loads(args.one)
        impl, pass_name = one.pop("impl"), one.pop("pass")
        print(json.dumps(measure_memory(impl, pass_name, Shape(**one))))  # one number
        return 0
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    lengths = (512, 1024) if args.quick else tuple(args.lengths or SWEEP_LENGTHS)
    record = run(lengths, args.rounds, args.min_run_time)
    text = json.dumps(record.as_json(), indent=2) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(f"load average before {record.load_before}, after {record.load_after}")
    for goal in record.goals:
        ratio = "not measured" if goal.ratio is None else f"{goal.ratio:.3f}"
        print(f"{goal.name}: {ratio} (target <= {goal.limit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
