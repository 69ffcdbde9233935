"""Probes for the flash-attn package's ``flash_attn_func``: they need a CUDA device and flash-attn.

flash-attn has no CPU kernel, so on a machine without CUDA these rows are reported as not verified
and the table cites the source they rest on instead (the package's README, "2.1: Change behavior of
causal flag").  Where a CUDA device and flash-attn are present the probes run like every other: the
shared zero queries and keys and one-hot values (:mod:`attention.semantics.probes.inputs`), float16
(the kernels take half precision only), so the output is the weight matrix.  ``flash_attn`` is
fetched when a probe runs; :data:`DEVICE` and :data:`DTYPE` are module settings so the tests can run
the probes against a stand-in on the CPU.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention.semantics.observe import causal_alignment, empty_row_outcome
from attention.semantics.probes.inputs import read_weights, weight_inputs
from attention.semantics.probes.windows import window_reading
from attention.semantics.registry import framework_module, probe

__all__ = [
    "DEVICE",
    "DTYPE",
    "flash_attn_func_causal_alignment",
    "flash_attn_func_fully_masked_row",
    "flash_attn_func_window_size",
    "flash_weights",
]

FRAMEWORK = "flash_attn"
DEVICE = "cuda"
DTYPE = torch.float16


def flash_weights(
    length: int, source: int, *, causal: bool, window_size: tuple[int, int] | None = None
) -> Tensor:
    """Weights ``[L, S]`` of ``flash_attn.flash_attn_func`` (layout ``[B, L, H, D]``)."""
    flash_attn = framework_module("flash_attn")
    query, key, value = weight_inputs(
        length, source, layout="BLHD", width=16, dtype=DTYPE, device=DEVICE
    )  # [B, L, H, D]
    window = {} if window_size is None else {"window_size": window_size}
    output = flash_attn.flash_attn_func(query, key, value, causal=causal, **window)  # [B, L, H, D]
    return read_weights(output, "BLHD", source)  # [L, S], float64 on the CPU


@probe("flash_attn.flash_attn_func.causal.alignment", framework=FRAMEWORK)
def flash_attn_func_causal_alignment() -> str:
    """Where ``causal=True`` puts the triangle with fewer queries than keys (L=2, S=4)."""
    return causal_alignment(flash_weights(2, 4, causal=True))


@probe("flash_attn.flash_attn_func.fully_masked_row", framework=FRAMEWORK)
def flash_attn_func_fully_masked_row() -> str:
    """Output of the queries a bottom-right triangle leaves without a key (L=4, S=2: rows 0, 1)."""
    weights = flash_weights(4, 2, causal=True)
    seen = {empty_row_outcome(weights[row]) for row in (0, 1)}
    return seen.pop() if len(seen) == 1 else f"differs between rows 0 and 1: {sorted(seen)}"


@probe("flash_attn.flash_attn_func.window_size", framework=FRAMEWORK)
def flash_attn_func_window_size() -> str:
    """How many keys ``window_size=(2, 0)`` with ``causal=True`` lets each of 6 queries see."""
    return window_reading(flash_weights(6, 6, causal=True, window_size=(2, 0)), 2)
