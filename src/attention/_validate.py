"""Input checks shared by the attention functions, the mask converters and the builders.

Every check raises one of :mod:`attention.errors` with a message that names the argument, what it
was and what was expected, so a failure points at the caller's mistake rather than at a NaN three
layers later.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from attention.errors import (
    AttentionShapeError,
    InputDtypeError,
    MaskDtypeError,
    MaskValueError,
    NonFiniteError,
)


def shape_str(tensor: Tensor) -> str:
    """Format a tensor's shape as ``[2, 3, 4]`` for error messages."""
    return "[" + ", ".join(str(size) for size in tensor.shape) + "]"


def resolve_scale(scale: float | None, d_k: int) -> float:
    """Return ``scale``, or the default ``1/sqrt(d_k)``; reject a NaN or infinite scale."""
    factor = 1.0 / math.sqrt(d_k) if scale is None else float(scale)
    if not math.isfinite(factor):
        raise NonFiniteError(f"scale must be finite, got {scale!r}")
    return factor


OVERFLOW_MESSAGE = (
    "scores Q·Kᵀ·scale overflowed to ±inf in {dtype}; the inputs are finite but too large for "
    "this dtype (compute in a wider dtype or normalise the inputs)"
)


def scores_may_overflow(query: Tensor, key: Tensor, factor: float) -> bool:
    """Whether some score ``factor·q·k`` could overflow the dtype, so the scores need a check.

    ``|q·k| <= |q|·|k|`` (Cauchy-Schwarz): bounding the largest norms bounds every score without
    reading the ``[L, S]`` scores, so the common case pays for no extra pass over them.
    """
    limit = torch.finfo(query.dtype).max
    if query.numel() == 0:
        return False
    # Half-precision norms are taken in float32; a float32/64 norm that overflows gives inf,
    # which only makes the check run, so the native dtype is safe and avoids a copy.
    wide = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    largest_q = query.to(wide).norm(dim=-1).max().item()
    largest_k = key.to(wide).norm(dim=-1).max().item()
    return bool(largest_q * largest_k * abs(factor) >= limit)


def require_bool(name: str, mask: Tensor) -> None:
    """Raise :class:`MaskDtypeError` unless ``mask`` is a ``torch.bool`` tensor."""
    if not isinstance(mask, Tensor):
        raise MaskDtypeError(f"{name} must be a torch.bool tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise MaskDtypeError(
            f"{name} must be a torch.bool tensor (True = may attend), got dtype {mask.dtype}; "
            "convert explicitly with attention.conventions instead of relying on a cast"
        )


def require_additive(name: str, additive: Tensor) -> None:
    """Raise unless ``additive`` is floating point and holds no NaN and no +inf."""
    if not isinstance(additive, Tensor) or not additive.is_floating_point():
        dtype = additive.dtype if isinstance(additive, Tensor) else type(additive).__name__
        raise MaskDtypeError(
            f"{name} must be a floating-point tensor added to the scores (0 = allowed, "
            f"-inf = forbidden), got {dtype}"
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


def require_same_device(name: str, tensor: Tensor, reference: Tensor) -> None:
    """Raise :class:`AttentionShapeError` if ``tensor`` lives on another device than the inputs."""
    if tensor.device != reference.device:
        raise AttentionShapeError(
            f"{name} is on {tensor.device} but query is on {reference.device}; move it first"
        )


def check_inputs(
    query: Tensor, key: Tensor, value: Tensor, *, leading: str = "B"
) -> tuple[int, int, int]:
    """Check query/key/value against the contract and return ``(L, S, D)``.

    The contract: ``query [..., L, D]``, ``key [..., S, D]``, ``value [..., S, Dv]`` with identical
    leading dimensions, identical floating dtypes, one device, ``S > 0``, ``D > 0`` and finite
    entries.  ``leading`` names the leading dimensions in messages (``"B"`` for the 3-D contract).
    """
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        if not isinstance(tensor, Tensor):
            raise InputDtypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if not tensor.is_floating_point():
            raise InputDtypeError(f"{name} must be a floating-point tensor, got {tensor.dtype}")
    if not query.dtype == key.dtype == value.dtype:
        raise InputDtypeError(
            f"query, key and value must share one dtype, got {query.dtype}, {key.dtype}, "
            f"{value.dtype}"
        )
    for name, tensor in (("key", key), ("value", value)):
        require_same_device(name, tensor, query)
    if not query.shape[:-2] == key.shape[:-2] == value.shape[:-2]:
        raise AttentionShapeError(
            f"{leading} dimensions must match: query {shape_str(query)}, key {shape_str(key)}, "
            f"value {shape_str(value)}"
        )
    if query.shape[-1] != key.shape[-1]:
        raise AttentionShapeError(
            f"query and key must share the key dimension D: query {shape_str(query)} has "
            f"D={query.shape[-1]}, key {shape_str(key)} has D={key.shape[-1]}"
        )
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
    if query.shape[-1] == 0:
        raise AttentionShapeError(
            f"key dimension D must be positive: query has shape {shape_str(query)}"
        )
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        if not torch.isfinite(tensor).all():
            raise NonFiniteError(f"{name} holds NaN or ±inf; attention needs finite inputs")
    return query.shape[-2], key.shape[-2], query.shape[-1]
