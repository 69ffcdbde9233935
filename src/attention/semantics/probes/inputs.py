"""The inputs every probe shares: zero queries and keys, one-hot values, and the test masks.

Every attention call a probe makes gets zero queries and keys, so every score is 0, and the
identity as values, so each output row *is* that query's weight row (a value head dimension equal
to the query's unless a probe asks otherwise).  :func:`weight_inputs` builds the three tensors in
the layout the API takes and :func:`read_weights` reads the weight matrix ``[L, S]`` back out of
the output; the probes of every framework (torch, JAX, Flax, flash-attn, xFormers) use these two,
passing ``.numpy()`` copies where the framework takes NumPy arrays.

>>> query, key, value = weight_inputs(2, 3, layout="BHLD")
>>> tuple(query.shape), tuple(value.shape)
((1, 1, 2, 8), (1, 1, 3, 8))
>>> read_weights(value, "BHLD", 3).tolist()
[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
from torch import Tensor

from attention.semantics.observe import as_tensor

__all__ = [
    "ADDITIVE_ROW",
    "DTYPE",
    "EMPTY_ROW_ALLOWED",
    "PATTERN",
    "Layout",
    "agreed",
    "read_weights",
    "weight_inputs",
]

DTYPE = torch.float64
"""Probes compute in float64 where the API allows, so a weight of 1/3 is checked to many digits."""

PATTERN = torch.tensor(
    [
        [False, True, False],
        [True, False, True],
        [False, False, True],
    ]
)
"""A 3x3 Boolean mask with a True and a False in every row, deliberately in no convention: it is
handed to an API whose convention is under test.  Either reading leaves each query a key, and
the two readings give different weights, so the weights tell which one the API used."""

EMPTY_ROW_ALLOWED = torch.tensor(
    [
        [True, True, True],
        [False, False, False],
        [True, False, False],
    ]
)
"""3x3 **allowed** mask (True = may attend) whose query 1 may attend to no key."""

ADDITIVE_ROW = torch.tensor([[0.0, math.log(3.0), float("-inf")]], dtype=DTYPE)
"""An additive row [0, ln 3, -inf]: read as additive it gives weights [0.25, 0.75, 0]."""

Layout = Literal["BHLD", "BLD", "BLHD"]
"""Where the batch (B), head (H), token (L) and feature (D) axes are: ``[B, H, L, D]`` (torch's
SDPA and flex_attention), ``[B, L, D]`` (SDPA without a head axis), ``[B, L, H, D]`` (JAX, Flax,
flash-attn, xFormers)."""


def _arrange(matrix: Tensor, layout: Layout) -> Tensor:
    """A ``[T, D]`` matrix as one batch (and one head) in ``layout``."""
    if layout == "BHLD":
        return matrix[None, None]  # [1, 1, T, D]
    if layout == "BLD":
        return matrix[None]  # [1, T, D]
    return matrix[None, :, None, :]  # [1, T, 1, D]


def weight_inputs(
    length: int,
    source: int,
    *,
    layout: Layout = "BHLD",
    width: int = 8,
    value_width: int | None = None,
    dtype: torch.dtype = DTYPE,
    device: str = "cpu",
) -> tuple[Tensor, Tensor, Tensor]:
    """Query ``[L, D]`` and key ``[S, D]`` of zeros, value ``[S, Dv]`` one-hot, in ``layout``.

    ``D = width``; ``Dv = value_width`` (default ``D``) must be at least ``S`` so that each key
    has its own output column.
    """
    value_width = width if value_width is None else value_width
    if value_width < source:
        raise ValueError(f"value_width {value_width} < {source} keys: weights would overlap")
    query = torch.zeros(length, width, dtype=dtype, device=device)  # [L, D]: every score is 0
    key = torch.zeros(source, width, dtype=dtype, device=device)  # [S, D]
    value = torch.eye(source, value_width, dtype=dtype, device=device)  # [S, Dv]: one-hot rows
    return _arrange(query, layout), _arrange(key, layout), _arrange(value, layout)


def read_weights(output: Any, layout: Layout, source: int) -> Tensor:
    """The weight matrix ``[L, S]`` (float64, CPU) in the output of a call on :func:`weight_inputs`.

    ``output`` may be a torch tensor or any array NumPy can read (JAX, Keras).
    """
    full = as_tensor(output)
    rows = full[0, 0] if layout == "BHLD" else full[0] if layout == "BLD" else full[0, :, 0]
    return rows[:, :source]  # [L, S]


def agreed(seen: dict[str, str]) -> str:
    """The common value of ``seen``, or a description naming who observed what.

    >>> agreed({"math": "allowed", "flash": "allowed"})
    'allowed'
    >>> agreed({"math": "zeros", "flash": "nan"})
    'differs by code path: math: zeros, flash: nan'
    """
    values = set(seen.values())
    if len(values) == 1:
        return values.pop()
    return "differs by code path: " + ", ".join(f"{path}: {value}" for path, value in seen.items())
