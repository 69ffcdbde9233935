"""Probes for ``scaled_dot_product_attention`` on nested tensors of the jagged layout.

A jagged nested tensor holds sequences of different lengths without padding
(``torch.nested.nested_tensor(..., layout=torch.jagged)``, from torch 2.2).  The probes build a
batch of two sequences, of 2 and 3 tokens, in the layout the earlier probes use: zero queries and
keys, one-hot values, so each output row is that query's weight row over its own sequence.

>>> sdpa_nested_no_mask()
'applied'
"""

from __future__ import annotations

import logging

import torch
import torch.nn.functional as F
from torch import Tensor

from attention.semantics.observe import call_outcome, same
from attention.semantics.probes.releases import ABSENT
from attention.semantics.registry import probe

__all__ = ["sdpa_nested_attn_mask", "sdpa_nested_is_causal", "sdpa_nested_no_mask"]

LENGTHS = (2, 3)
"""The token counts of the two sequences of the batch."""

WIDTH = 8
"""Head dimension D (and Dv): a multiple of 8, so no kernel turns the inputs down for their size."""


def _jagged_inputs() -> tuple[Tensor, Tensor, Tensor] | None:
    """Query, key and value ``[B=2, H=1, j, D]`` (``j``: 2 and 3 tokens), or None before 2.2.

    Queries and keys are zeros; sequence ``b``'s values are the first rows of the identity, so
    its output row ``i`` holds query ``i``'s weights over its own keys in columns ``0..j-1``.
    """
    if not hasattr(torch, "jagged"):
        return None

    def nested(rows: list[Tensor]) -> Tensor:
        # [B, j, H=1, D] as built, then [B, H, j, D] as SDPA takes it
        built: Tensor = torch.nested.nested_tensor(rows, layout=torch.jagged)
        return built.transpose(1, 2)

    try:
        query = nested([torch.zeros(n, 1, WIDTH) for n in LENGTHS])
        value = nested([torch.eye(n, WIDTH)[:, None] for n in LENGTHS])
    except TypeError:  # torch 2.1: nested_tensor takes no layout
        return None
    return query, query, value


def _weights(output: Tensor) -> list[Tensor]:
    """Each sequence's weight matrix ``[j, j]`` in the output of a call on the probes' inputs.

    The output ``[B, H, j, D]`` is unbound as ``[B, j, H, D]``: torch 2.3 unbinds a jagged
    tensor only along the batch of its ragged dimension 1.
    """
    items = output.transpose(1, 2).unbind()  # each [j, H, D]
    return [item[:, 0, :length] for item, length in zip(items, LENGTHS, strict=True)]


@probe("sdpa_nested.no_mask")
def sdpa_nested_no_mask() -> str:
    """Whether each sequence of a jagged batch attends only to its own keys, without a mask.

    ``"error"`` where the call itself is rejected for want of a CUDA driver (torch 2.2's CUDA
    build on a machine without one).
    """
    if (inputs := _jagged_inputs()) is None:
        return ABSENT
    try:
        output = F.scaled_dot_product_attention(*inputs)
    except RuntimeError as error:
        # torch 2.2's CUDA build asks the CUDA flash-attention check first, even for CPU
        # tensors, and on a machine without a CUDA driver that check raises
        return _rejected(("error", error), mentioning=("CUDA driver",))
    weights = _weights(output)
    expected = [torch.full((n, n), 1.0 / n) for n in LENGTHS]  # every own key, equally
    if all(same(seen, want) for seen, want in zip(weights, expected, strict=True)):
        return "applied"
    return "unrecognised: weights " + "; ".join(str(w.tolist()) for w in weights)


def _rejected(outcome: tuple[str, BaseException | None], *, mentioning: tuple[str, ...]) -> str:
    """The outcome's word; an error must mention one of ``mentioning`` (else it is unrecognised)."""
    word, error = outcome
    if word == "error" and not any(reason in str(error) for reason in mentioning):
        return f"unrecognised: {type(error).__name__}: {error}"
    return word


@probe("sdpa_nested.attn_mask")
def sdpa_nested_attn_mask() -> str:
    """Whether SDPA takes an ``attn_mask`` with jagged nested query, key and value."""
    if (inputs := _jagged_inputs()) is None:
        return ABSENT
    allowed = torch.ones(3, 3, dtype=torch.bool)  # lets every key through: only its presence counts
    outcome = call_outcome(lambda: F.scaled_dot_product_attention(*inputs, attn_mask=allowed))
    return _rejected(outcome, mentioning=("Masks are not yet supported",))


@probe("sdpa_nested.is_causal")
def sdpa_nested_is_causal() -> str:
    """Whether SDPA takes ``is_causal=True`` with jagged nested inputs on the CPU.

    Every CPU kernel turns it down, and the call raises that no kernel was found.  From torch
    2.15 a CUDA build asks the cuDNN kernel first, which on a machine without a CUDA driver
    raises a CUDA error instead: the call is rejected either way.
    """
    if (inputs := _jagged_inputs()) is None:
        return ABSENT
    # the kernel selection logs why each kernel declined, at WARNING: expected here, not news
    nested_log = logging.getLogger("torch.nested")
    level = nested_log.level
    nested_log.setLevel(logging.ERROR)
    try:
        outcome = call_outcome(lambda: F.scaled_dot_product_attention(*inputs, is_causal=True))
    finally:
        nested_log.setLevel(level)
    return _rejected(outcome, mentioning=("No viable backend", "CUDA driver"))
