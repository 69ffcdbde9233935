"""Which probe checks which claim: a decorator that files each probe under its claim id.

A probe is a function without arguments that calls the real framework API on a tiny input and
returns the word it observed (see :mod:`attention.semantics.observe`).  Probes for one framework
live in one module; :data:`FRAMEWORK_MODULES` says where, so another framework's rows are added by
writing its module and its claims, without touching the runner.

>>> probes = probes_for("torch")
>>> probes["sdpa.attn_mask.bool"]()
'allowed'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["FRAMEWORK_MODULES", "Probe", "probe", "probes_for"]

Probe = Callable[[], str]
"""A probe: no arguments, returns the observed vocabulary word (or an "unrecognised ..." text)."""

FRAMEWORK_MODULES: Mapping[str, str] = {"torch": "attention.semantics.probes"}
"""The module holding each framework's probes, imported only when its rows run."""

_PROBES: dict[str, dict[str, Probe]] = {}


def probe(claim_id: str, *, framework: str = "torch") -> Callable[[Probe], Probe]:
    """Register the decorated function as the probe of ``claim_id``.

    >>> @probe("example.only.row", framework="doc-example")
    ... def observe() -> str:
    ...     return "ok"
    >>> _PROBES["doc-example"]["example.only.row"]()
    'ok'
    """

    def register(function: Probe) -> Probe:
        table = _PROBES.setdefault(framework, {})
        if claim_id in table:
            raise ValueError(f"two probes for claim {claim_id!r}")
        table[claim_id] = function
        return function

    return register


def probes_for(framework: str) -> Mapping[str, Probe]:
    """Import ``framework``'s probe module and return its probes by claim id."""
    if framework not in FRAMEWORK_MODULES:
        raise KeyError(f"no probes for framework {framework!r}; known: {sorted(FRAMEWORK_MODULES)}")
    importlib.import_module(FRAMEWORK_MODULES[framework])
    return dict(_PROBES.get(framework, {}))
