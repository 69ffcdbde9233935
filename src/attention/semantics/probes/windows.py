"""How many keys a sliding window of size W covers, read off a weight matrix.

Two conventions are in use for the same number W.  transformers' ``sliding_window`` counts the
query's own key: a window of W covers W keys (the query and the W - 1 before it).  flash-attn's
``window_size=(left, right)`` counts the keys on each side of the query, which itself comes on
top: ``(W, 0)`` covers W + 1 keys.  Both readings are checked on a causal ``[L, L]`` matrix.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention.semantics.observe import describe

__all__ = ["window_reading"]


def _band(length: int, before: int) -> Tensor:
    """``[L, L]`` allowed: query i sees keys i - before .. i."""
    ones = torch.ones(length, length, dtype=torch.bool)
    return ones.tril() & ~ones.tril(diagonal=-before - 1)


def window_reading(weights: Tensor, window: int) -> str:
    """``"w_keys"`` / ``"w_plus_1_keys"``: which keys a window of ``window`` let each query see.

    >>> weights = _band(4, 1).double()
    >>> window_reading(weights / weights.sum(-1, keepdim=True), 2)
    'w_keys'
    >>> window_reading(weights / weights.sum(-1, keepdim=True), 1)
    'w_plus_1_keys'
    """
    length = weights.shape[-1]
    receives = weights.detach().cpu() > 0
    if torch.equal(receives, _band(length, window - 1)):
        return "w_keys"
    if torch.equal(receives, _band(length, window)):
        return "w_plus_1_keys"
    return f"unrecognised: weights {describe(weights)}"
