"""Measure dense, tiled and torch's own attention kernels: time and extra peak memory.

``python -m attention.benchmark --out record.json`` runs every measurement in a fresh Python process
(so one run's allocations cannot hide another's peak), takes the median of several processes per
figure, and writes a JSON record with the machine, the torch version and the date.  A time is one
call after a warm-up call of the same size; a memory figure is the growth of the peak resident
size during the first call of that size.  It never fails
on timing noise: the goals it reports are ratios to read, not assertions.

Implementations measured (shapes ``B, H, T, D``; float32):

* ``torch_default`` -- ``F.scaled_dot_product_attention`` with ``is_causal``: torch picks its
  fastest CPU kernel (a fused, flash-style kernel);
* ``torch_math`` -- the same call restricted to ``SDPBackend.MATH`` (explicit, materialised scores);
* ``dense`` -- :func:`attention.scaled_dot_product_attention` on ``[B·H, T, D]``;
* ``tiled`` -- :func:`attention.tiled_attention` on ``[B, H, T, D]``.

Masked runs use the causal mask: ``is_causal=True`` for torch's kernels and
:func:`attention.causal_allowed` (``[T, T]``, True = may attend) for the package.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from attention.masks import causal_allowed
from attention.scaled_dot_product import scaled_dot_product_attention
from attention.tiled import tiled_attention

__all__ = ["IMPLEMENTATIONS", "main", "measure_once"]

IMPLEMENTATIONS = ("torch_default", "torch_math", "dense", "tiled")
"""Names accepted by :func:`measure_once`."""

SWEEP_LENGTHS = (512, 1024, 2048, 4096, 8192)
SWEEP_SHAPE = {"batch": 1, "heads": 8, "d_k": 64}
DENSE_VS_MATH = {"batch": 4, "heads": 1, "d_k": 64, "length": 1024, "masked": True}


def _runner(name: str, q: Tensor, k: Tensor, v: Tensor, masked: bool) -> Callable[[], Tensor]:
    """The call to time; inputs are ``[B, H, T, D]``."""
    length = q.shape[-2]
    if name == "torch_default":
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=masked)
    if name == "torch_math":

        def math_backend() -> Tensor:
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
                return F.scaled_dot_product_attention(q, k, v, is_causal=masked)

        return math_backend
    allowed = causal_allowed(length) if masked else None  # [T, T], True = may attend
    if name == "dense":
        q3, k3, v3 = (x.reshape(-1, length, x.shape[-1]) for x in (q, k, v))  # [B*H, T, D]
        return lambda: scaled_dot_product_attention(q3, k3, v3, allowed)[0]
    if name == "tiled":
        return lambda: tiled_attention(q, k, v, allowed)
    raise ValueError(f"unknown implementation {name!r}; expected one of {IMPLEMENTATIONS}")


def _max_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def measure_once(
    name: str, *, batch: int, heads: int, length: int, d_k: int, masked: bool, what: str
) -> float:
    """One measurement in this process: ``what="seconds"`` or ``what="extra_peak_bytes"``.

    ``"seconds"`` times a call after a warm-up call of the same size, so kernels, thread pool
    and allocator are warm, as in a training loop.  ``"extra_peak_bytes"`` is the growth of the
    process's peak resident size during the first call at that size (after a small warm-up that
    loads the kernels); :func:`run` measures it in processes whose allocator returns every large
    block on release, so the peak is what the call needed at once.

    >>> config = {"batch": 1, "heads": 1, "length": 64, "d_k": 8, "masked": True}
    >>> measure_once("tiled", what="seconds", **config) > 0
    True
    """
    generator = torch.Generator().manual_seed(0)
    shape = (batch, heads, length, d_k)
    q, k, v = (torch.randn(shape, generator=generator) for _ in range(3))  # [B, H, T, D]
    call = _runner(name, q, k, v, masked)
    if what == "seconds":
        call()
        start = time.perf_counter()
        call()
        return time.perf_counter() - start
    if what == "extra_peak_bytes":
        warm_q, warm_k, warm_v = (torch.randn(batch, heads, 64, d_k) for _ in range(3))
        _runner(name, warm_q, warm_k, warm_v, masked)()
        before = _max_rss_bytes()
        call()
        return float(_max_rss_bytes() - before)
    raise ValueError(f"what must be 'seconds' or 'extra_peak_bytes', got {what!r}")


def _in_fresh_process(name: str, config: dict[str, Any], what: str) -> float:
    arguments = [
        sys.executable,
        "-m",
        "attention.benchmark",
        "--one",
        json.dumps({"name": name, "what": what, **config}),
    ]
    env = dict(os.environ)
    if what == "extra_peak_bytes":
        # A fixed mmap threshold makes glibc return every large block to the system when it
        # is freed, so the peak resident size measures what the call needed at once, for every
        # implementation alike, rather than what the allocator kept cached.  Timing runs keep
        # the default allocator: returning blocks costs page faults on every allocation.
        env["MALLOC_MMAP_THRESHOLD_"] = str(128 * 1024)
    done = subprocess.run(arguments, check=True, capture_output=True, text=True, env=env)
    return float(json.loads(done.stdout))


def _figure(name: str, config: dict[str, Any], repeats: int) -> dict[str, Any]:
    seconds = [_in_fresh_process(name, config, "seconds") for _ in range(repeats)]
    memory = [_in_fresh_process(name, config, "extra_peak_bytes") for _ in range(repeats)]
    return {
        "impl": name,
        **config,
        "seconds_median": statistics.median(seconds),
        "seconds_runs": seconds,
        "extra_peak_bytes_median": statistics.median(memory),
        "extra_peak_bytes_runs": memory,
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ratio(numerator: dict[str, Any] | None, denominator: dict[str, Any] | None, key: str) -> Any:
    if numerator is None or denominator is None:
        return None
    return numerator[key] / denominator[key]


def _find(results: list[dict[str, Any]], impl: str, **where: Any) -> dict[str, Any] | None:
    for row in results:
        if row["impl"] == impl and all(row.get(key) == value for key, value in where.items()):
            return row
    return None


def _goal(ratios: dict[str, float | None], limit: float) -> dict[str, Any]:
    measured = [value for value in ratios.values() if value is not None]
    worst = max(measured) if measured else None
    return {
        "ratio": worst,
        "by_mask": ratios,
        "target": f"<= {limit}",
        "met": None if worst is None else worst <= limit,
    }


def goals(results: list[dict[str, Any]], dense_vs_math: list[dict[str, Any]]) -> dict[str, Any]:
    """The three ratios the benchmark page reports, each with its target (worst mask case).

    >>> rows = [
    ...     {"impl": "tiled", "length": 4096, "masked": False, "seconds_median": 3.0},
    ...     {"impl": "torch_default", "length": 4096, "masked": False, "seconds_median": 2.0},
    ... ]
    >>> pair = [{"impl": "dense", "seconds_median": 1.0}, {"impl": "torch_math",
    ...     "seconds_median": 1.0}]
    >>> result = goals(rows, pair)
    >>> result["tiled_time_vs_torch_default_T4096"]["ratio"]
    1.5
    >>> result["tiled_memory_vs_dense_T8192"]["met"] is None      # T = 8192 was not measured
    True
    """

    def by_mask(numerator: str, denominator: str, length: int, key: str) -> dict[str, Any]:
        return {
            name: _ratio(
                _find(results, numerator, length=length, masked=masked),
                _find(results, denominator, length=length, masked=masked),
                key,
            )
            for name, masked in (("none", False), ("causal", True))
        }

    memory = by_mask("tiled", "dense", 8192, "extra_peak_bytes_median")
    timing = by_mask("tiled", "torch_default", 4096, "seconds_median")
    pair = {
        "causal": _ratio(
            _find(dense_vs_math, "dense"), _find(dense_vs_math, "torch_math"), "seconds_median"
        )
    }
    return {
        "tiled_memory_vs_dense_T8192": _goal(memory, 0.125),
        "tiled_time_vs_torch_default_T4096": _goal(timing, 2.0),
        "dense_time_vs_torch_math_B4_T1024_causal": _goal(pair, 1.1),
    }


def run(lengths: tuple[int, ...], repeats: int) -> dict[str, Any]:
    """Run the whole benchmark and return the record (see the module docstring)."""
    results = []
    for length in lengths:
        for masked in (False, True):
            for name in ("torch_default", "dense", "tiled"):
                config = {**SWEEP_SHAPE, "length": length, "masked": masked}
                results.append(_figure(name, config, repeats))
                print(_describe(results[-1]), file=sys.stderr, flush=True)
    pair = []
    for name in ("dense", "torch_math"):
        pair.append(_figure(name, dict(DENSE_VS_MATH), max(repeats, 5)))
        print(_describe(pair[-1]), file=sys.stderr, flush=True)
    return {
        "date": dt.date.today().isoformat(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(),
        },
        "dtype": "float32",
        "repeats": repeats,
        "sweep": results,
        "dense_vs_math": pair,
        "goals": goals(results, pair),
    }


def _describe(row: dict[str, Any]) -> str:
    mask = "causal" if row["masked"] else "none"
    mib = row["extra_peak_bytes_median"] / 2**20
    return (
        f"{row['impl']:>13}  T={row['length']:>5}  mask={mask:<6}  "
        f"{row['seconds_median'] * 1000:9.1f} ms  {mib:9.1f} MiB extra peak"
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--out PATH`` writes the record; ``--quick`` runs a small sweep."""
    parser = argparse.ArgumentParser(prog="python -m attention.benchmark", description=__doc__)
    parser.add_argument("--out", type=Path, help="write the JSON record here")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--quick", action="store_true", help="T = 512 and 1024 only")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        config = json.loads(args.one)
        name = config.pop("name")
        print(json.dumps(measure_once(name, **config)))  # one number
        return 0
    lengths = (512, 1024) if args.quick else SWEEP_LENGTHS
    record = run(lengths, args.repeats)
    text = json.dumps(record, indent=2) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    for name, goal in record["goals"].items():
        ratio = "not measured" if goal["ratio"] is None else f"{goal['ratio']:.3f}"
        print(f"{name}: {ratio} (target {goal['target']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
