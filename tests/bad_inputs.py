"""Hypothesis strategies for the bad-input suite: arguments of every kind, right and wrong.

Every strategy draws the values themselves (sizes, dtypes, entries, devices), never a seed, so a
failure shrinks to a minimal tensor or number.  The counter records how each generated case
ended, for the terminal summary.
"""

from __future__ import annotations

import math
from collections import Counter

import torch
from hypothesis import strategies as st
from torch import Tensor

OUTCOMES: Counter[str] = Counter()
"""``"error"`` (a package error naming the argument) or ``"answer"`` (equal to torch's), per case."""

FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
ALL_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int32,
    torch.int64,
    *FLOAT_DTYPES,
    torch.complex64,
]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan, 6e4, -6e4, 1e39, 1e-45]


def summary() -> str:
    """One line for the terminal summary."""
    total = sum(OUTCOMES.values())
    return (
        f"Bad-input cases: {total} ({OUTCOMES['error']} raised a package error naming the "
        f"argument, {OUTCOMES['answer']} returned a finite answer equal to torch's)"
    )


def _elements(dtype: torch.dtype) -> st.SearchStrategy[object]:
    if dtype == torch.bool:
        return st.booleans()
    if dtype.is_complex:
        return st.complex_numbers(max_magnitude=4, allow_nan=False, allow_infinity=False)
    if dtype.is_floating_point:
        return st.one_of(st.floats(-4, 4, width=16), st.sampled_from(SPECIAL_FLOATS))
    low = 0 if dtype == torch.uint8 else -2
    return st.integers(low, 3)


@st.composite
def tensors(
    draw: st.DrawFn,
    *,
    dtypes: list[torch.dtype] | None = None,
    shape: tuple[int, ...] | None = None,
    elements: st.SearchStrategy[object] | None = None,
    meta: bool = True,
) -> Tensor:
    """A small tensor: its dtype, shape, entries and device (cpu, sometimes meta) all drawn."""
    dtype = draw(st.sampled_from(dtypes or ALL_DTYPES))
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    count = math.prod(shape)
    values = draw(
        st.lists(_elements(dtype) if elements is None else elements, min_size=count, max_size=count)
    )
    tensor = torch.tensor(values, dtype=dtype).reshape(shape)
    if meta and draw(st.integers(0, 9)) == 0:
        tensor = tensor.to("meta")
    return tensor


MODERATE: st.SearchStrategy[object] = st.floats(-3, 3, width=16)
"""Entries that a valid call takes: finite and of ordinary size."""


JUNK: st.SearchStrategy[object] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.sampled_from(SPECIAL_FLOATS),
    st.text(max_size=3),
    st.sampled_from(["2", "abc", "float32", "cpu", "upper_left"]),
    st.complex_numbers(max_magnitude=4, allow_nan=False, allow_infinity=False),
    st.lists(st.integers(-1, 3), max_size=3),
    st.sampled_from([torch.float32, torch.int64, torch.bool, torch.nn.Linear(2, 2)]),
    tensors(),
)
"""Any kind of value: every argument of every function is also tried with one of these."""

INTS: st.SearchStrategy[object] = st.one_of(
    st.integers(-3, 6), st.sampled_from([2.0, 2.5, True, False, "2", None, 1 + 0j])
)
"""Near misses for an int argument: negative, zero, float, bool, string."""

SCALES: st.SearchStrategy[object] = st.one_of(
    st.none(),
    st.floats(-4, 4),
    st.sampled_from([*SPECIAL_FLOATS, 10**400, 100, True, "2", "abc", torch.tensor(2.0)]),
)
"""Near misses for ``scale``: zero, negative, huge, tiny, infinite, NaN, a bool, a string."""

DEVICES: st.SearchStrategy[object] = st.sampled_from(
    [None, "cpu", torch.device("cpu"), "meta", "abc", "cuda", 0, 1.5]
)
DTYPES: st.SearchStrategy[object] = st.one_of(
    st.sampled_from(ALL_DTYPES), st.sampled_from(["float32", None, 32])
)
FLAGS: st.SearchStrategy[object] = st.sampled_from([True, False, 0, 1, "yes", None])
