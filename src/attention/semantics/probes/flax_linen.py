"""Live probes for Flax Linen's ``dot_product_attention`` and its mask helper.

The shared input (:mod:`attention.semantics.probes.inputs`) in layout ``[B, T, N, H]``: zero
queries and keys, one-hot values, so the output is the weight matrix.  ``flax.linen`` is
fetched when a probe runs, never at import.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from attention.semantics.observe import (
    additive_reading,
    as_tensor,
    boolean_polarity,
    describe,
    empty_row_outcome,
    mask_convention,
)
from attention.semantics.probes.inputs import (
    ADDITIVE_ROW,
    EMPTY_ROW_ALLOWED,
    PATTERN,
    read_weights,
    weight_inputs,
)
from attention.semantics.registry import framework_module, probe

__all__ = [
    "flax_weights",
    "linen_dot_product_attention_fully_masked_row",
    "linen_dot_product_attention_mask_bool",
    "linen_dot_product_attention_mask_float",
    "linen_make_causal_mask",
]

FRAMEWORK = "flax"


def flax_weights(mask: Tensor) -> Tensor:
    """Weights ``[T, S]`` of ``flax.linen.dot_product_attention`` with ``mask`` ``[T, S]``."""
    linen = framework_module("flax.linen")
    length, source = mask.shape
    inputs = weight_inputs(length, source, layout="BLHD", dtype=torch.float32)  # [B, T, N, H]
    query, key, value = (tensor.numpy() for tensor in inputs)
    arg: Any = mask.numpy()[None, None]  # [B, N, T, S]
    output = linen.dot_product_attention(query, key, value, mask=arg)  # [B, T, N, H]
    return read_weights(output, "BLHD", source)  # [T, S]


@probe("flax.linen.dot_product_attention.mask.bool", framework=FRAMEWORK)
def linen_dot_product_attention_mask_bool() -> str:
    """What True means in ``mask``: which keys receive weight."""
    return boolean_polarity(flax_weights(PATTERN), PATTERN)


@probe("flax.linen.dot_product_attention.mask.float", framework=FRAMEWORK)
def linen_dot_product_attention_mask_float() -> str:
    """How a floating-point ``mask`` [0, ln 3, -inf] is read: added, or taken as Boolean."""
    mask = ADDITIVE_ROW.to(torch.float32).expand(3, 3)  # [T, S]
    return additive_reading(flax_weights(mask), mask)


@probe("flax.linen.dot_product_attention.fully_masked_row", framework=FRAMEWORK)
def linen_dot_product_attention_fully_masked_row() -> str:
    """Output of a query whose Boolean ``mask`` row is all False."""
    return empty_row_outcome(flax_weights(EMPTY_ROW_ALLOWED)[1])


@probe("flax.linen.make_causal_mask", framework=FRAMEWORK)
def linen_make_causal_mask() -> str:
    """The convention of the mask ``make_causal_mask`` builds for three tokens.

    It returns a float array; one holding only 1 and 0 is read as Boolean (1 = True), anything
    else goes to :func:`~attention.semantics.observe.mask_convention` as it is.
    """
    linen = framework_module("flax.linen")
    mask = as_tensor(linen.make_causal_mask(np.zeros((1, 3), dtype=np.int32)))  # [B, 1, T, T]
    if mask.shape != (1, 1, 3, 3):
        return f"unrecognised: shape {tuple(mask.shape)}, values {describe(mask)}"
    square = mask[0, 0]  # [T, T]
    if bool(((square == 0) | (square == 1)).all()):
        return mask_convention(square == 1)
    return mask_convention(square)
