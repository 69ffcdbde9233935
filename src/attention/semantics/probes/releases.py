"""What a torch release lacks: the probes' answer for an API that is not there yet.

The rows are probed on every release from torch 2.0 on; ``torch.nn.attention.bias`` arrived in
2.3 and ``flex_attention`` and ``enable_gqa`` in 2.5.  A probe asks for such an API through
:func:`optional_module` (or by calling it) and answers :data:`ABSENT` where the release does not
have it.  The claims say from which release on a row's API exists (``introduced``), so ``absent``
on a release that should have the API fails the row like any other wrong value.

>>> optional_module("torch.nn.functional") is not None, optional_module("torch.no_such_module")
(True, None)
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["ABSENT", "optional_module"]

ABSENT = "absent"
"""What a probe answers on a torch release that lacks the API or argument its row is about."""


def optional_module(name: str) -> ModuleType | None:
    """The module ``name``, or None on a release that does not have it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
