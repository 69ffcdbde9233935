"""What each PyTorch attention API does with masks, stated as data and checked on the live library.

The claims live in ``conf/semantics.toml`` (:mod:`attention.semantics.claims`), with what changed
between torch releases; one probe per claim calls the real API on a tiny hand-made input
(:mod:`attention.semantics.probes`); :mod:`attention.semantics.report` compares the two for the
installed release, and :mod:`attention.semantics.record` keeps what each verified release showed
(:mod:`attention.semantics.paths` knows where every file is).  Run it on your own torch with
``python -m attention.semantics`` (``--json`` for machine-readable output).

>>> from attention.semantics import load_claims, run
>>> [row.observed for row in run(load_claims(), only=["mha.attn_mask.bool"])]
['forbidden']
"""

from typing import TYPE_CHECKING, Any

from attention.semantics.claims import (
    VOCABULARY,
    Change,
    Claim,
    ClaimsError,
    expected_for,
    load_claims,
)

if TYPE_CHECKING:
    from attention.semantics.report import (
        ReleaseContext,
        RowResult,
        exit_status,
        release_context,
        run,
        to_json,
    )

_NEED_TORCH = ("ReleaseContext", "RowResult", "exit_status", "release_context", "run", "to_json")
"""The names that run the probes, and so import torch: imported on first use, so that reading
the claims (the checker's links do) needs no torch."""


def __getattr__(name: str) -> Any:
    if name in _NEED_TORCH:
        from attention.semantics import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "VOCABULARY",
    "Change",
    "Claim",
    "ClaimsError",
    "ReleaseContext",
    "RowResult",
    "exit_status",
    "expected_for",
    "load_claims",
    "release_context",
    "run",
    "to_json",
]
