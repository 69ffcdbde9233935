"""Live probes for MLX's ``mx.fast.scaled_dot_product_attention``, on MLX's Linux CPU build.

The inputs are zero queries and keys and one-hot values in MLX's layout ``[B, N, L, D]`` with
``scale=1``, so the output is the weight matrix (as in every other row).  ``mlx[cpu]`` is the
CPU-only build of MLX for Linux; Apple's Metal kernels are not checked here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attention.semantics.observe import (
    additive_reading,
    as_tensor,
    boolean_polarity,
    causal_alignment,
    empty_row_outcome,
)
from attention.semantics.registry import framework_module, probe

__all__ = [
    "mask_bool",
    "mask_causal_alignment",
    "mask_float",
    "mask_fully_masked_row",
    "mlx_weights",
]

FRAMEWORK = "mlx"
PATTERN = np.array([[True, False, True, True], [False, True, True, False]])  # [L=2, S=4]


def mlx_weights(length: int, source: int, mask: Any) -> Tensor:
    """Weights ``[L, S]`` (float64) of ``mx.fast.scaled_dot_product_attention`` with ``mask``."""
    mx = framework_module("mlx.core")
    query = mx.zeros((1, 1, length, 4))  # [B, N, L, D]: every score is 0
    key = mx.zeros((1, 1, source, 4))
    value = mx.array(np.eye(source, dtype=np.float32)[None, None])  # output row = weight row
    if isinstance(mask, np.ndarray):
        mask = mx.array(mask)
    output = mx.fast.scaled_dot_product_attention(query, key, value, scale=1.0, mask=mask)
    return as_tensor(np.asarray(output, np.float64)[0, 0])


@probe("mlx.fast.scaled_dot_product_attention.mask.bool", framework=FRAMEWORK)
def mask_bool() -> str:
    """A Boolean ``mask`` [L, S]."""
    return boolean_polarity(mlx_weights(2, 4, PATTERN), torch.from_numpy(PATTERN))


@probe("mlx.fast.scaled_dot_product_attention.mask.float", framework=FRAMEWORK)
def mask_float() -> str:
    """A floating-point ``mask`` holding 0, ln 3 and -inf."""
    additive = np.array([[0.0, math.log(3.0), -np.inf]], np.float32)
    return additive_reading(mlx_weights(1, 3, additive), torch.from_numpy(additive))


@probe("mlx.fast.scaled_dot_product_attention.mask.causal.alignment", framework=FRAMEWORK)
def mask_causal_alignment() -> str:
    """``mask="causal"`` with 2 queries and 4 keys."""
    return causal_alignment(mlx_weights(2, 4, "causal"))


@probe("mlx.fast.scaled_dot_product_attention.fully_masked_row", framework=FRAMEWORK)
def mask_fully_masked_row() -> str:
    """A Boolean ``mask`` whose second row is all False."""
    empty = np.array([[True, True, False], [False, False, False]])
    return empty_row_outcome(mlx_weights(2, 3, empty)[1])
