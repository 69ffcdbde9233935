"""Turn what a framework call returned into a word of the claims vocabulary.

The probes feed every attention call the same kind of tiny input: zero queries and keys, so every
score is 0, and the identity matrix as values, so each output row *is* that query's weight row.
A Boolean mask then shows as equal weights on the keys it lets through and exact zeros elsewhere,
and an additive mask ``m`` shows as ``softmax(m)``.  The functions below read such weight
matrices; anything they do not recognise comes back as a description starting with
``"unrecognised"``, which never equals an expected value, so the row fails and says why.

>>> import torch
>>> allowed = torch.tensor([[True, False], [False, True]])
>>> weights = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
>>> boolean_polarity(weights, allowed)
'allowed'
>>> boolean_polarity(weights, ~allowed)
'forbidden'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

__all__ = [
    "CallCounter",
    "ProbePathError",
    "additive_reading",
    "as_tensor",
    "boolean_polarity",
    "call_outcome",
    "causal_alignment",
    "count_calls",
    "describe",
    "empty_row_outcome",
    "mask_convention",
    "same",
    "warning_outcome",
]


class ProbePathError(RuntimeError):
    """A probe's call did not take the code path its claim is about, so it observed nothing.

    >>> raise ProbePathError("fast path not taken")
    Traceback (most recent call last):
    ...
    attention.semantics.observe.ProbePathError: fast path not taken
    """


def describe(tensor: Tensor) -> str:
    """A short, stable rendering of a small tensor (4 decimals) for "unrecognised" reports.

    >>> describe(torch.tensor([[1 / 3, float("nan")]]))
    '[[0.3333, nan]]'
    """

    def render(item: Any) -> str:
        if isinstance(item, list):
            return "[" + ", ".join(render(part) for part in item) + "]"
        value = float(item)
        return "nan" if math.isnan(value) else f"{value:.4f}"

    return render(tensor.detach().to(torch.float64).cpu().tolist())


def as_tensor(array: Any) -> Tensor:
    """Another framework's array (JAX, Keras, NumPy) as a float64 torch tensor on the CPU.

    The other frameworks' probes read their results with the same functions as the torch ones;
    every array type they return converts through NumPy's ``__array__`` protocol.

    >>> import numpy as np
    >>> as_tensor(np.array([[0.25, 0.75]], dtype=np.float32))
    tensor([[0.2500, 0.7500]], dtype=torch.float64)
    """
    if isinstance(array, Tensor):
        return array.detach().to("cpu", torch.float64)
    import numpy as np  # a dependency of every framework whose arrays come here

    return torch.from_numpy(np.array(array, dtype=np.float64))


def same(first: Tensor, second: Tensor, *, atol: float = 1e-6) -> bool:
    """True when two tensors have the same shape and values (NaN equals NaN).

    >>> same(torch.tensor([0.5, float("nan")]), torch.tensor([0.5, float("nan")]))
    True
    """
    if first.shape != second.shape:
        return False
    a, b = first.detach().to(torch.float64).cpu(), second.detach().to(torch.float64).cpu()
    return bool(torch.allclose(a, b, atol=atol, rtol=0.0, equal_nan=True))


def boolean_polarity(weights: Tensor, pattern: Tensor) -> str:
    """``"allowed"`` / ``"forbidden"``: which reading of the Boolean ``pattern`` gave ``weights``.

    ``weights`` and ``pattern`` are ``[L, S]``.  Under the *allowed* reading exactly the True
    entries receive weight; under the *forbidden* reading exactly the False ones.  ``pattern``
    must have a True and a False entry in every row, so both readings leave every row a key.

    >>> pattern = torch.tensor([[True, False, True]])
    >>> boolean_polarity(torch.tensor([[0.0, 1.0, 0.0]]), pattern)
    'forbidden'
    >>> boolean_polarity(torch.tensor([[0.2, 0.3, 0.5]]), pattern)
    'unrecognised: weights [[0.2000, 0.3000, 0.5000]]'
    """
    if not bool((pattern.any(-1) & (~pattern).any(-1)).all()):
        raise ValueError("pattern needs a True and a False entry in every row")
    receives = weights.detach().cpu() > 0  # NaN compares False: a NaN row matches no reading
    pattern = pattern.cpu()
    if torch.equal(receives, pattern):
        return "allowed"
    if torch.equal(receives, ~pattern):
        return "forbidden"
    return f"unrecognised: weights {describe(weights)}"


def additive_reading(weights: Tensor, mask: Tensor) -> str:
    """How a floating-point ``mask`` [L, S] was read, from the weights [L, S] it produced.

    ``"additive"`` when ``weights == softmax(mask)`` (zero scores plus the mask); ``"allowed"`` or
    ``"forbidden"`` when the mask was taken as Boolean (nonzero = True).  Use a mask that holds 0,
    a finite nonzero value and -inf in every row, so the three readings differ.

    >>> mask = torch.tensor([[0.0, math.log(3.0), float("-inf")]])
    >>> additive_reading(torch.tensor([[0.25, 0.75, 0.0]]), mask)
    'additive'
    >>> additive_reading(torch.tensor([[1.0, 0.0, 0.0]]), mask)
    'forbidden'
    """
    readings = {
        "additive": torch.softmax(mask.to(torch.float64), dim=-1),
        "allowed": _uniform_over(mask != 0),
        "forbidden": _uniform_over(mask == 0),
    }
    for word, expected in readings.items():
        if same(weights, expected):
            return word
    return f"unrecognised: weights {describe(weights)}"


def _uniform_over(keys: Tensor) -> Tensor:
    keys = keys.to(torch.float64)
    return keys / keys.sum(-1, keepdim=True)


def causal_alignment(weights: Tensor) -> str:
    """``"upper_left"`` / ``"lower_right"``: where the causal triangle of ``weights`` [L, S] sits.

    Upper-left: query ``i`` sees keys ``j <= i``.  Lower-right: query ``i`` sees keys
    ``j <= i + S - L``.  Use ``L < S`` so the two differ.

    >>> causal_alignment(torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]))
    'upper_left'
    >>> causal_alignment(torch.tensor([[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]]))
    'lower_right'
    """
    length, source = weights.shape
    receives = weights.detach().cpu() > 0
    ones = torch.ones(length, source, dtype=torch.bool)
    if torch.equal(receives, ones.tril()):
        return "upper_left"
    if torch.equal(receives, ones.tril(diagonal=source - length)):
        return "lower_right"
    return f"unrecognised: weights {describe(weights)}"


def empty_row_outcome(row: Tensor) -> str:
    """``"zeros"`` / ``"nan"`` / ``"uniform"``: the output row of a query with no allowed key.

    With the identity as values, ``"uniform"`` is a row of ``1 / S`` (every key weighted equally,
    as a finite "large negative" mask would give).

    >>> empty_row_outcome(torch.zeros(3)), empty_row_outcome(torch.full((3,), float("nan")))
    ('zeros', 'nan')
    >>> empty_row_outcome(torch.full((4,), 0.25))
    'uniform'
    """
    row = row.detach().to(torch.float64).cpu()
    if bool(torch.isnan(row).all()):
        return "nan"
    if bool((row == 0).all()):
        return "zeros"
    if same(row, torch.full_like(row, 1.0 / row.numel())):
        return "uniform"
    return f"unrecognised: row {describe(row)}"


def call_outcome(call: Callable[[], object]) -> tuple[str, BaseException | None]:
    """``("error", exc)`` when ``call()`` raises an :class:`Exception`, else ``("ok", None)``.

    A :class:`ProbePathError` is not an outcome of the call under test but a failed probe, so it
    propagates.

    >>> call_outcome(lambda: 1 / 0)[0], call_outcome(lambda: 1)[0]
    ('error', 'ok')
    """
    try:
        call()
    except ProbePathError:
        raise
    except Exception as error:
        return "error", error
    return "ok", None


def warning_outcome(call: Callable[[], object], *, mentioning: str) -> str:
    """``"warning"`` / ``"silent"`` / ``"error"``: whether ``call()`` warns about ``mentioning``.

    Every warning is recorded (the ``"always"`` filter), so a warning already shown earlier in
    the process still counts; only warnings whose text contains ``mentioning`` do.

    >>> warning_outcome(lambda: warnings.warn("mask dtypes differ"), mentioning="mask")
    'warning'
    >>> warning_outcome(lambda: None, mentioning="mask")
    'silent'
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome, _ = call_outcome(call)
    if outcome == "error":
        return "error"
    if any(mentioning in str(item.message) for item in caught):
        return "warning"
    return "silent"


def mask_convention(mask: Tensor) -> str:
    """The convention of a causal mask ``[T, T]`` a framework built: additive / allowed / forbidden.

    >>> causal = torch.ones(2, 2, dtype=torch.bool).tril()
    >>> mask_convention(causal), mask_convention(~causal)
    ('allowed', 'forbidden')
    >>> mask_convention(torch.tensor([[0.0, float("-inf")], [0.0, 0.0]]))
    'additive'
    """
    size = mask.shape[-1]
    lower = torch.ones(size, size, dtype=torch.bool).tril()
    mask = mask.detach().cpu()
    if mask.dtype == torch.bool:
        if torch.equal(mask, lower):
            return "allowed"
        if torch.equal(mask, ~lower):
            return "forbidden"
    elif (
        mask.is_floating_point()
        and torch.equal(torch.isneginf(mask), ~lower)
        and bool((mask[lower] == 0).all())
    ):
        return "additive"
    return f"unrecognised: {mask.dtype} mask {describe(mask.to(torch.float64))}"


@dataclass
class CallCounter:
    """How many times a wrapped callable ran, and the keyword arguments of each call."""

    calls: int = 0
    kwargs: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def count_calls(owner: object, name: str) -> Iterator[CallCounter]:
    """Wrap ``owner.name`` with a counter for the duration of the ``with`` block.

    This is how a probe proves which code path ran: e.g. ``nn.MultiheadAttention`` takes its
    fast path exactly when it calls ``torch._native_multi_head_attention``.  The wrapper calls
    whatever ``owner.name`` is on entry and is removed on exit, even after an exception.

    >>> import math
    >>> with count_calls(math, "sqrt") as counter:
    ...     _ = math.sqrt(4.0)
    >>> counter.calls
    1
    """
    original = getattr(owner, name)
    counter = CallCounter()

    def counting(*args: Any, **kwargs: Any) -> Any:
        counter.calls += 1
        counter.kwargs.append(kwargs)
        return original(*args, **kwargs)

    setattr(owner, name, counting)
    try:
        yield counter
    finally:
        setattr(owner, name, original)
