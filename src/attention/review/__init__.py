"""The mask table applied to code under review: a static checker and a runtime watch.

``python -m attention.review PATH...`` reads Python sources and reports the mask mistakes its
rules prove (:mod:`attention.review.rules`); :func:`watch` observes real attention calls while a
program or a test suite runs.  Every finding cites the rows of the mask-semantics table it rests
on (:mod:`attention.review.links`).

This package reads the claims registry (:mod:`attention.semantics`); nothing in the core package
or in :mod:`attention.semantics` imports it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["watch"]


def __getattr__(name: str) -> Any:
    # the runtime watch imports torch's function-mode machinery: only when it is asked for
    if name == "watch":
        from attention import require_torch

        require_torch("attention.review.watch")
        from attention.review.watch import watch

        return watch
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
