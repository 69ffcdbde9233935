"""Input checks shared by the attention functions, the module, the converters and the builders.

Every check raises one of :mod:`attention.errors` with a message that names the caller's
argument, says what it was and what was expected, so a failure points at the caller's mistake
rather than at a NaN (or an ``AttributeError`` from deep inside torch) three layers later.  The
public functions call these once, at their entry point; their inner helpers trust the result.
"""

from __future__ import annotations

import math
from numbers import Real

import torch
from torch import Tensor

from attention.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    AttentionShapeError,
    DeviceError,
    InputDtypeError,
    MaskDtypeError,
    MaskValueError,
    NonFiniteError,
)

BOOLEAN_MEANING = {
    "allowed": "True = may attend",
    "forbidden": "True = masked out",
    "attn_mask": "True = masked out",
    "key_padding_mask": "True = padded key, masked out",
}
"""What True means in each Boolean mask argument, for messages; anything else reads as allowed."""


def shape_str(tensor: Tensor) -> str:
    """Format a tensor's shape as ``[2, 3, 4]`` for error messages."""
    return "[" + ", ".join(str(size) for size in tensor.shape) + "]"


def describe(value: object) -> str:
    """``str '2'``, ``bool True``, ``list [1, 2]``: the type and a short repr, for messages."""
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype scores are computed in: float32 for half precision (as torch's CPU kernels do)."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


# -- Python arguments -------------------------------------------------------------------------


def require_int(
    name: str,
    value: object,
    *,
    minimum: int | None = None,
    error: type[ValueError] = ArgumentValueError,
) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) ``>= minimum``, else raise.

    A wrong type raises :class:`ArgumentTypeError`; a value below ``minimum`` raises ``error``
    (:class:`ArgumentValueError` by default, :class:`MaskArgumentError` for mask builders).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(
            f"{name} must be an int, got {describe(value)}; pass a Python int "
            "(a bool or a float is not accepted as a count)"
        )
    if minimum is not None and value < minimum:
        raise error(f"{name} must be >= {minimum}, got {value}")
    return value


def require_flag(name: str, value: object) -> bool:
    """Return ``value`` if it is a ``bool``; a truthy int, string or tensor is not a flag."""
    if not isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be True or False, got {describe(value)}")
    return value


def require_real(name: str, value: object) -> float:
    """Return ``float(value)`` for a real number (not a ``bool``, not a string, not a tensor)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ArgumentTypeError(
            f"{name} must be a real number (int or float) or None, got {describe(value)}"
        )
    try:
        return float(value)
    except OverflowError:
        raise NonFiniteError(
            f"{name}={value!r} is too large for a float; pass a finite number"
        ) from None


def require_dtype(name: str, value: object) -> torch.dtype:
    """Return ``value`` if it is a ``torch.dtype``; a string such as ``"float32"`` is not one."""
    if not isinstance(value, torch.dtype):
        raise ArgumentTypeError(
            f"{name} must be a torch.dtype such as torch.float32, got {describe(value)}"
        )
    return value


def require_device(name: str, value: object) -> torch.device | None:
    """Parse a ``device`` argument (None, a string or a ``torch.device``) that torch can use."""
    if value is None:
        return None
    if not isinstance(value, str | torch.device):
        raise ArgumentTypeError(
            f"{name} must be a torch.device, a string such as 'cpu', or None, got {describe(value)}"
        )
    try:
        device = torch.device(value)
        torch.empty(0, device=device)  # an unavailable backend (cuda on a CPU build) fails here
    except (RuntimeError, AssertionError) as error:
        raise DeviceError(
            f"{name}={value!r} is not a device torch can use here ({error}); pass e.g. 'cpu'"
        ) from None
    return device


def resolve_scale(scale: object, d_k: int, dtype: torch.dtype | None = None) -> float:
    """Return ``scale``, or the default ``1/sqrt(d_k)``; reject a scale that is not finite.

    ``scale`` must be a real number (not a ``bool`` or a string).  With ``dtype`` (the inputs'),
    it must also be finite in the dtype the scores are computed in (:func:`compute_dtype`):
    ``1e39`` is a finite Python float but infinite in float32, where ``0 · inf`` gives NaN.
    """
    factor = 1.0 / math.sqrt(d_k) if scale is None else require_real("scale", scale)
    if not math.isfinite(factor):
        raise NonFiniteError(f"scale must be finite, got {scale!r}")
    if dtype is not None:
        wide = compute_dtype(dtype)
        largest = torch.finfo(wide).max
        if abs(factor) > largest:
            raise NonFiniteError(
                f"scale={scale!r} is infinite in {wide}, where the scores of {dtype} inputs are "
                f"computed (largest finite value {largest:.4g}); pass a smaller scale"
            )
    return factor


# -- tensors -----------------------------------------------------------------------------------


def require_tensor(name: str, value: object, expected: str = "a torch.Tensor") -> Tensor:
    """Return ``value`` if it is a tensor with data (not on the meta device), else raise."""
    if not isinstance(value, Tensor):
        raise ArgumentTypeError(f"{name} must be {expected}, got {describe(value)}")
    require_data(name, value)
    return value


def require_data(name: str, tensor: Tensor) -> None:
    """Raise :class:`DeviceError` for a meta tensor: it has a shape but no values to check."""
    if tensor.is_meta:
        raise DeviceError(
            f"{name} is on the meta device, which holds a shape but no values to compute with; "
            "pass a tensor that holds data (on cpu or an accelerator)"
        )


def require_same_device(
    name: str, tensor: Tensor, reference: Tensor, reference_name: str = "query"
) -> None:
    """Raise :class:`DeviceError` if ``tensor`` is on another device than ``reference`` or on meta.

    A mismatch is reported first (a meta mask next to a cpu query is on the wrong device); two
    meta tensors are reported as holding no values.
    """
    if tensor.device != reference.device:
        raise DeviceError(
            f"{name} is on {tensor.device} but {reference_name} is on {reference.device}; move "
            f"it first, e.g. {name}.to({reference_name}.device)"
        )
    require_data(name, tensor)


def require_bool(name: str, mask: object, meaning: str | None = None) -> None:
    """Raise unless ``mask`` is a ``torch.bool`` tensor with data.

    ``meaning`` says what True means in this argument (its convention); by default it is looked
    up by name in :data:`BOOLEAN_MEANING` (``forbidden`` -> "True = masked out"), and an unknown
    name reads as an allowed mask.
    """
    meaning = meaning or BOOLEAN_MEANING.get(name, "True = may attend")
    if not isinstance(mask, Tensor):
        raise ArgumentTypeError(
            f"{name} must be a torch.bool tensor ({meaning}), got {describe(mask)}"
        )
    require_data(name, mask)
    if mask.dtype != torch.bool:
        raise MaskDtypeError(
            f"{name} must be a torch.bool tensor ({meaning}), got dtype {mask.dtype}; "
            "convert explicitly with attention.conventions instead of relying on a cast"
        )


def require_additive(name: str, additive: object) -> None:
    """Raise unless ``additive`` is floating point and holds no NaN and no +inf."""
    if not isinstance(additive, Tensor):
        raise ArgumentTypeError(
            f"{name} must be a floating-point tensor added to the scores (0 = allowed, "
            f"-inf = forbidden), got {describe(additive)}"
        )
    require_data(name, additive)
    if not additive.is_floating_point():
        raise MaskDtypeError(
            f"{name} must be a floating-point tensor added to the scores (0 = allowed, "
            f"-inf = forbidden), got {additive.dtype}"
        )
    if torch.isnan(additive).any():
        raise MaskValueError(f"{name} holds NaN; an additive mask may hold finite values or -inf")
    if torch.isposinf(additive).any():
        raise MaskValueError(f"{name} holds +inf; an additive mask may hold finite values or -inf")


def broadcast_to(name: str, mask: Tensor, shape: tuple[int, ...], layout: str) -> Tensor:
    """Broadcast ``mask`` to ``shape`` or raise :class:`AttentionShapeError` naming both."""
    try:
        target = torch.broadcast_shapes(mask.shape, shape)  # type: ignore[no-untyped-call]
    except RuntimeError:
        target = None
    if target != torch.Size(shape):
        wanted = "[" + ", ".join(str(size) for size in shape) + "]"
        raise AttentionShapeError(
            f"{name} has shape {shape_str(mask)}, which does not broadcast to {layout} = {wanted}"
        )
    return mask.expand(shape)


def require_finite(name: str, tensor: Tensor, what: str = "attention needs finite inputs") -> None:
    """Raise :class:`NonFiniteError` if ``tensor`` holds NaN or ±inf.

    The sum is NaN or ±inf whenever an entry is, so a finite sum proves every entry finite (one
    cheap reduction instead of an elementwise test); only when the sum is not finite, which finite
    entries can also cause by overflowing it, is every entry tested.
    """
    if math.isfinite(tensor.sum().item()):
        return
    if not bool(torch.isfinite(tensor).all()):
        raise NonFiniteError(f"{name} holds NaN or ±inf; {what}")


# -- query, key, value --------------------------------------------------------------------------


def check_query_key(query: object, key: object, *, leading: str = "B") -> tuple[int, int, int]:
    """Check ``query [..., L, D]`` and ``key [..., S, D]`` and return ``(L, S, D)``.

    Both are floating-point tensors with data, of one dtype, on one device, with at least two
    dimensions, identical leading dimensions, the same ``D > 0`` and finite entries.
    """
    q = require_tensor("query", query)
    if isinstance(key, Tensor):
        require_same_device("key", key, q)
    k = require_tensor("key", key)
    for name, tensor in (("query", q), ("key", k)):
        if tensor.ndim < 2:
            raise AttentionShapeError(
                f"{name} must have at least 2 dimensions [..., positions, features], got shape "
                f"{shape_str(tensor)}"
            )
        if not tensor.is_floating_point():
            raise InputDtypeError(f"{name} must be a floating-point tensor, got {tensor.dtype}")
    if q.dtype != k.dtype:
        raise InputDtypeError(f"query and key must share one dtype, got {q.dtype}, {k.dtype}")
    if q.shape[:-2] != k.shape[:-2]:
        raise AttentionShapeError(
            f"{leading} dimensions must match: query {shape_str(q)}, key {shape_str(k)}"
        )
    _require_same_width(q, k)
    for name, tensor in (("query", q), ("key", k)):
        require_finite(name, tensor)
    return q.shape[-2], k.shape[-2], q.shape[-1]


def _require_same_width(query: Tensor, key: Tensor) -> None:
    if query.shape[-1] != key.shape[-1]:
        raise AttentionShapeError(
            f"query and key must share the key dimension D: query {shape_str(query)} has "
            f"D={query.shape[-1]}, key {shape_str(key)} has D={key.shape[-1]}"
        )
    if query.shape[-1] == 0:
        raise AttentionShapeError(
            f"key dimension D must be positive: query has shape {shape_str(query)}"
        )


def check_inputs(
    query: Tensor, key: Tensor, value: Tensor, *, leading: str = "B"
) -> tuple[int, int, int]:
    """Check query/key/value against the contract and return ``(L, S, D)``.

    The contract: ``query [..., L, D]``, ``key [..., S, D]``, ``value [..., S, Dv]`` with identical
    leading dimensions, identical floating dtypes, one device (not meta), ``S > 0``, ``D > 0`` and
    finite entries.  ``leading`` names the leading dimensions in messages (``"B"`` for the 3-D
    contract).
    """
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        if not isinstance(tensor, Tensor):
            raise ArgumentTypeError(f"{name} must be a torch.Tensor, got {describe(tensor)}")
        if name != "query":
            require_same_device(name, tensor, query)
        require_data(name, tensor)
        if not tensor.is_floating_point():
            raise InputDtypeError(f"{name} must be a floating-point tensor, got {tensor.dtype}")
    if not query.dtype == key.dtype == value.dtype:
        raise InputDtypeError(
            f"query, key and value must share one dtype, got {query.dtype}, {key.dtype}, "
            f"{value.dtype}"
        )
    if not query.shape[:-2] == key.shape[:-2] == value.shape[:-2]:
        raise AttentionShapeError(
            f"{leading} dimensions must match: query {shape_str(query)}, key {shape_str(key)}, "
            f"value {shape_str(value)}"
        )
    if query.shape[-1] != key.shape[-1]:
        _require_same_width(query, key)
    if key.shape[-2] != value.shape[-2]:
        raise AttentionShapeError(
            f"key and value must share the source length S: key {shape_str(key)} has "
            f"S={key.shape[-2]}, value {shape_str(value)} has S={value.shape[-2]}"
        )
    if key.shape[-2] == 0:
        raise AttentionShapeError(
            f"source length S must be positive: key has shape {shape_str(key)}, so no query "
            "has anything to attend to"
        )
    _require_same_width(query, key)
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        require_finite(name, tensor)
    return query.shape[-2], key.shape[-2], query.shape[-1]


# -- overflow ------------------------------------------------------------------------------------

OVERFLOW_MESSAGE = (
    "scores Q·Kᵀ·scale overflowed to ±inf in {dtype}; query, key and scale are finite but their "
    "scores are too large for this dtype (use a smaller scale, normalise query and key, or "
    "compute in a wider dtype)"
)

ADDITIVE_OVERFLOW_MESSAGE = (
    "scores plus additive overflowed to ±inf in {dtype}: additive holds finite values so large "
    "that the masked scores leave the dtype's range; use -inf to forbid a key and keep biases "
    "small"
)


def score_bound(query: Tensor, key: Tensor, factor: float) -> float:
    """An upper bound on every ``|factor·q·k|``, from the largest row norms (Cauchy-Schwarz)."""
    if query.numel() == 0 or key.numel() == 0:
        return 0.0
    # Half-precision norms are taken in float32; a float32/64 norm that overflows gives inf,
    # which only makes the check run, so the native dtype is safe and avoids a copy.
    wide = compute_dtype(query.dtype)
    largest_q = query.to(wide).norm(dim=-1).max().item()
    largest_k = key.to(wide).norm(dim=-1).max().item()
    return float(largest_q * largest_k * abs(factor))


def scores_may_overflow(query: Tensor, key: Tensor, factor: float) -> bool:
    """Whether some score ``factor·q·k`` could overflow the dtype, so the scores need a check.

    ``|q·k| <= |q|·|k|`` (Cauchy-Schwarz): bounding the largest norms bounds every score without
    reading the ``[L, S]`` scores, so the common case pays for no extra pass over them.
    """
    return score_bound(query, key, factor) >= torch.finfo(query.dtype).max


def within_dtype(values: Tensor, dtype: torch.dtype) -> bool:
    """Whether every entry of ``values`` is finite and finite again once cast to ``dtype``."""
    return bool((values.abs() <= torch.finfo(dtype).max).all())


def check_scores(scores: Tensor, dtype: torch.dtype) -> None:
    """Raise :class:`NonFiniteError` unless the scores (any dtype) are finite in ``dtype``."""
    if not within_dtype(scores, dtype):
        raise NonFiniteError(OVERFLOW_MESSAGE.format(dtype=dtype))


def check_masked_scores(masked: Tensor, additive: Tensor, dtype: torch.dtype) -> None:
    """Raise unless ``scores + additive`` stays in ``dtype``'s range wherever additive is finite.

    ``additive``'s ``-inf`` entries forbid keys and are meant to give ``-inf``; a finite entry
    that pushes a score past the largest finite value (to ``+inf``, or to ``-inf``, which would
    silently forbid a key the mask allows) is reported instead.
    """
    outside = (masked.abs() > torch.finfo(dtype).max) & ~torch.isneginf(additive)
    if bool(outside.any()):
        raise NonFiniteError(ADDITIVE_OVERFLOW_MESSAGE.format(dtype=dtype))
