"""Which of the package's functions work on the installed torch: measured, not assumed.

The package declares the torch releases it supports (``torch>=2.5`` in ``pyproject.toml``), but
the mask-semantics rows are probed on older releases too (``nox -s semantics_matrix``).  On every
release the record says which of the package's public functions run there: each is exercised by
its own doctests (in its module's namespace), and the benchmark's kernels by one tiny call each.
A function whose example raises or prints another result is listed with the first line that
says why.

>>> report = package_support()
>>> report["checked"] > 20, report["fails"]
(True, {})
"""

from __future__ import annotations

import doctest
import importlib
import importlib.metadata
import inspect
import io
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["BENCHMARK_KERNELS", "declared_requirement", "function_failure", "package_support"]

BENCHMARK_KERNELS = ("torch_default", "torch_math", "dense", "tiled")
"""The implementations :mod:`attention.benchmark` times; each is called once, tiny."""

_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def declared_requirement() -> str:
    """The torch requirement the installed package declares (``torch>=2.5``)."""
    try:
        requires = importlib.metadata.requires("attention-textbook") or []
    except importlib.metadata.PackageNotFoundError:
        return "torch (the package is not installed: run from a checkout)"
    return next((r.split(";")[0].replace(" ", "") for r in requires if r.startswith("torch")), "")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "failed"


def function_failure(function: Callable[..., Any]) -> str | None:
    """Why ``function``'s doctests fail on this torch, or None when every example passes."""
    module = inspect.getmodule(function)
    namespace = dict(vars(module)) if module is not None else {}
    name = getattr(function, "__qualname__", repr(function))
    for test in doctest.DocTestFinder().find(function, name, module=module, globs=namespace):
        output = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=_FLAGS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = runner.run(test, out=output.write)
        if result.failed:
            return _last_line(output.getvalue())
    return None


def _benchmark_failure(kernel: str) -> str | None:
    try:
        from attention import benchmark  # torch.utils.benchmark: older releases need more
    except Exception as error:
        return f"import: {type(error).__name__}: {error}".splitlines()[0]
    shape = benchmark.Shape(batch=1, heads=1, length=8, d_k=4, masked=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for pass_name in ("forward", "forward_backward"):
                benchmark.runner(kernel, pass_name, shape)()
    except Exception as error:
        return f"{type(error).__name__}: {error}".splitlines()[0]
    return None


def package_support() -> dict[str, Any]:
    """``requires`` (what the package declares), ``checked`` (how many) and ``fails``.

    ``fails`` maps each public name of :mod:`attention` whose doctests fail, and each benchmark
    kernel (``attention.benchmark:<kernel>``) that cannot run, to the reason.
    """
    import attention

    fails: dict[str, str] = {}
    checked = 0
    for name in attention.__all__:
        checked += 1
        reason = function_failure(getattr(attention, name))
        if reason is not None:
            fails[f"attention.{name}"] = reason
    for kernel in BENCHMARK_KERNELS:
        checked += 1
        reason = _benchmark_failure(kernel)
        if reason is not None:
            fails[f"attention.benchmark:{kernel}"] = reason
    return {"requires": declared_requirement(), "checked": checked, "fails": fails}
