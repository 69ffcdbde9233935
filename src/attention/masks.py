"""Mask builders.  Every builder returns a **Boolean mask, True = may attend** (``allowed``).

This is the convention of :func:`torch.nn.functional.scaled_dot_product_attention` and of
:func:`attention.scaled_dot_product_attention`.  For ``nn.MultiheadAttention`` (True = forbidden)
or an additive float mask, pass the result through :mod:`attention.conventions`.

Shapes (``L`` queries, ``S`` keys, ``T`` when the two are the same sequence):

==============================  ===============  ==============================================
builder                         returns          meaning of True at ``[.., i, j]``
==============================  ===============  ==============================================
:func:`causal_allowed`          ``[L, S]``       query ``i`` may see key ``j`` (no future)
:func:`bidirectional_allowed`   ``[L, S]``       always (encoder self-attention)
:func:`prefix_lm_allowed`       ``[T, T]``       ``j`` in the prefix, or ``j <= i``
:func:`sliding_window_allowed`  ``[T, T]``       ``j`` within ``window`` positions of ``i``
:func:`block_diagonal_allowed`  ``[T, T]``       ``i`` and ``j`` in the same packed segment
:func:`key_padding_allowed`     ``[B, 1, S]``    key ``j`` of sequence ``b`` is a real token
:func:`source_padding_allowed`  ``[B, L, S]``    cross-attention: source token ``j`` is real
:func:`query_padding_allowed`   ``[B, L]``       query ``i`` is a real token (mask outputs/loss)
==============================  ===============  ==============================================

Combine masks with :func:`intersect_allowed` (logical and) and :func:`union_allowed` (or); both
broadcast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import torch
from torch import Tensor

from attention._validate import (
    describe,
    require_bool,
    require_data,
    require_device,
    require_flag,
    require_int,
    require_same_device,
    shape_str,
)
from attention.errors import ArgumentTypeError, AttentionShapeError, MaskArgumentError

__all__ = [
    "Alignment",
    "bidirectional_allowed",
    "block_diagonal_allowed",
    "causal_allowed",
    "intersect_allowed",
    "key_padding_allowed",
    "prefix_lm_allowed",
    "query_padding_allowed",
    "sliding_window_allowed",
    "source_padding_allowed",
    "union_allowed",
]

Alignment = Literal["upper_left", "lower_right"]
"""Where the causal triangle sits when ``L != S`` (see :func:`causal_allowed`)."""


def _require_length(name: str, value: object, *, minimum: int = 0) -> int:
    return require_int(name, value, minimum=minimum, error=MaskArgumentError)


def _integer_list(name: str, lengths: object) -> list[int]:
    """``lengths`` as a list of ints: a list/tuple of ints, or a 1-D integer tensor ``[B]``."""
    if isinstance(lengths, Tensor):
        require_data(name, lengths)
        integer = not (lengths.is_floating_point() or lengths.is_complex())
        if lengths.ndim != 1 or not integer or lengths.dtype == torch.bool:
            raise ArgumentTypeError(
                f"{name} must be a 1-D integer tensor [B] or a list of ints, got {lengths.dtype} "
                f"of shape {list(lengths.shape)}"
            )
        return [int(item) for item in lengths.tolist()]
    if isinstance(lengths, str | bytes) or not isinstance(lengths, Sequence):
        raise ArgumentTypeError(
            f"{name} must be a list of ints or a 1-D integer tensor [B], got {describe(lengths)}"
        )
    for item in lengths:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ArgumentTypeError(f"{name} must hold ints, got {describe(item)}")
    return list(lengths)


def _lengths_tensor(
    name: str, lengths: object, padded: tuple[str, int], device: torch.device | None
) -> Tensor:
    values = _integer_list(name, lengths)
    if values and min(values) < 0:
        raise MaskArgumentError(f"{name} must be >= 0, got {values}")
    if values and max(values) > padded[1]:
        raise MaskArgumentError(
            f"{name} must be <= the padded length {padded[0]}={padded[1]}, got {values}"
        )
    return torch.tensor(values, dtype=torch.long, device=device)


def causal_allowed(
    query_length: int,
    key_length: int | None = None,
    *,
    alignment: Alignment = "upper_left",
    device: torch.device | str | None = None,
) -> Tensor:
    """Causal mask ``[L, S]``, **True = may attend**: no query sees a later key.

    With ``L == S`` (``key_length`` omitted) this is the lower triangle including the diagonal.
    When ``L != S`` the triangle needs an anchor:

    * ``"upper_left"`` -- query ``i`` sees keys ``j <= i``.  This is what
      ``torch.nn.functional.scaled_dot_product_attention(is_causal=True)`` does.
    * ``"lower_right"`` -- query ``i`` sees keys ``j <= i + (S - L)``: the last query sees every
      key.  This is what decoding with a KV cache needs (the ``L`` new queries are the *last*
      ``L`` positions) and what ``torch.nn.attention.bias.causal_lower_right`` and flash-attn do.

    With ``"lower_right"`` and ``L > S`` the first ``L - S`` rows have no allowed key;
    :func:`attention.scaled_dot_product_attention` rejects such rows.

    Args:
        query_length: ``L``, the number of queries (rows), an int >= 0.
        key_length: ``S``, the number of keys (columns), an int >= 0; ``L`` when omitted.
        alignment: where the triangle is anchored when ``L != S``: ``"upper_left"`` or
            ``"lower_right"`` (above).
        device: where the mask is made; the default device when omitted.

    Returns:
        The **allowed** mask ``[L, S]`` (``torch.bool``, True = may attend).

    >>> causal_allowed(3).int()
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 1, 1]], dtype=torch.int32)
    >>> causal_allowed(2, 4, alignment="upper_left").int()
    tensor([[1, 0, 0, 0],
            [1, 1, 0, 0]], dtype=torch.int32)
    >>> causal_allowed(2, 4, alignment="lower_right").int()
    tensor([[1, 1, 1, 0],
            [1, 1, 1, 1]], dtype=torch.int32)
    """
    _require_length("query_length", query_length)
    source = query_length if key_length is None else key_length
    _require_length("key_length", source)
    if not isinstance(alignment, str):
        raise ArgumentTypeError(
            f"alignment must be the string 'upper_left' or 'lower_right', got {describe(alignment)}"
        )
    if alignment not in ("upper_left", "lower_right"):
        raise MaskArgumentError(
            f"alignment must be 'upper_left' or 'lower_right', got {alignment!r}"
        )
    device = require_device("device", device)
    offset = 0 if alignment == "upper_left" else source - query_length
    i = torch.arange(query_length, device=device)[:, None]  # [L, 1]
    j = torch.arange(source, device=device)[None, :]  # [1, S]
    return j <= i + offset  # [L, S]


def bidirectional_allowed(
    query_length: int, key_length: int | None = None, *, device: torch.device | str | None = None
) -> Tensor:
    """All-True mask ``[L, S]``, **True = may attend**: every query sees every key (encoders).

    >>> bidirectional_allowed(2, 3).int()
    tensor([[1, 1, 1],
            [1, 1, 1]], dtype=torch.int32)
    """
    _require_length("query_length", query_length)
    source = query_length if key_length is None else key_length
    _require_length("key_length", source)
    device = require_device("device", device)
    return torch.ones(query_length, source, dtype=torch.bool, device=device)  # [L, S]


def prefix_lm_allowed(
    length: int, prefix_length: int, *, device: torch.device | str | None = None
) -> Tensor:
    """Prefix-LM mask ``[T, T]``, **True = may attend**.

    The first ``prefix_length`` positions (the prompt) are visible to every query, so the prefix
    attends bidirectionally; the remaining positions are causal.

    >>> prefix_lm_allowed(4, 2).int()
    tensor([[1, 1, 0, 0],
            [1, 1, 0, 0],
            [1, 1, 1, 0],
            [1, 1, 1, 1]], dtype=torch.int32)
    """
    _require_length("length", length)
    _require_length("prefix_length", prefix_length)
    if prefix_length > length:
        raise MaskArgumentError(f"prefix_length must be <= length {length}, got {prefix_length}")
    device = require_device("device", device)
    j = torch.arange(length, device=device)[None, :]  # [1, T]
    return causal_allowed(length, device=device) | (j < prefix_length)  # [T, T]


def sliding_window_allowed(
    length: int, window: int, *, causal: bool = True, device: torch.device | str | None = None
) -> Tensor:
    """Local (sliding-window) mask ``[T, T]``, **True = may attend**.

    ``window`` counts positions including the query's own: with ``causal=True`` query ``i`` sees
    keys ``i - window < j <= i``; with ``causal=False`` it sees ``|i - j| < window``.  ``window=1``
    leaves only the diagonal.

    >>> sliding_window_allowed(4, 2).int()
    tensor([[1, 0, 0, 0],
            [1, 1, 0, 0],
            [0, 1, 1, 0],
            [0, 0, 1, 1]], dtype=torch.int32)
    >>> sliding_window_allowed(4, 2, causal=False).int()
    tensor([[1, 1, 0, 0],
            [1, 1, 1, 0],
            [0, 1, 1, 1],
            [0, 0, 1, 1]], dtype=torch.int32)
    """
    _require_length("length", length)
    _require_length("window", window, minimum=1)
    causal = require_flag("causal", causal)
    device = require_device("device", device)
    i = torch.arange(length, device=device)[:, None]  # [T, 1]
    j = torch.arange(length, device=device)[None, :]  # [1, T]
    near = (i - j).abs() < window  # [T, T]
    return near & (j <= i) if causal else near


def block_diagonal_allowed(
    segment_lengths: Sequence[int], *, device: torch.device | str | None = None
) -> Tensor:
    """Block-diagonal mask ``[T, T]`` for packed sequences, **True = may attend**.

    Several sequences of the given lengths are packed into one row of ``T = sum(segment_lengths)``
    tokens; a token may attend only within its own segment.  Intersect with
    :func:`causal_allowed` for packed causal training.

    >>> block_diagonal_allowed([2, 1]).int()
    tensor([[1, 1, 0],
            [1, 1, 0],
            [0, 0, 1]], dtype=torch.int32)
    """
    lengths = _integer_list("segment_lengths", segment_lengths)
    for n, value in enumerate(lengths):
        _require_length(f"segment_lengths[{n}]", value)
    device = require_device("device", device)
    segment = torch.repeat_interleave(
        torch.arange(len(lengths), device=device),
        torch.tensor(lengths, dtype=torch.long, device=device),
        output_size=sum(lengths),  # known here: a meta device cannot read it from the tensor
    )  # [T]: segment id of each token
    return segment[:, None] == segment[None, :]  # [T, T]


def key_padding_allowed(
    lengths: Sequence[int] | Tensor, source_length: int, *, device: torch.device | str | None = None
) -> Tensor:
    """Key-padding mask ``[B, 1, S]``, **True = may attend** (the key is a real token).

    Sequence ``b`` holds ``lengths[b]`` real tokens followed by padding up to ``source_length``.
    The singleton query axis broadcasts over every query, so all queries ignore the same padded
    keys.  A length of 0 leaves that sequence with no allowed key, which attention rejects.

    >>> key_padding_allowed([3, 1], 3).int()
    tensor([[[1, 1, 1]],
    <BLANKLINE>
            [[1, 0, 0]]], dtype=torch.int32)
    """
    _require_length("source_length", source_length)
    device = require_device("device", device)
    valid = _lengths_tensor("lengths", lengths, ("source_length", source_length), device)  # [B]
    return _key_padding(valid, source_length, device)  # [B, 1, S]


def _key_padding(valid: Tensor, source_length: int, device: torch.device | None) -> Tensor:
    j = torch.arange(source_length, device=device)  # [S]
    return (j[None, :] < valid[:, None])[:, None, :]  # [B, 1, S]


def source_padding_allowed(
    source_lengths: Sequence[int] | Tensor,
    source_length: int,
    query_length: int,
    *,
    device: torch.device | str | None = None,
) -> Tensor:
    """Cross-attention source mask ``[B, L, S]``, **True = may attend** (source token is real).

    In cross-attention the ``L`` decoder queries read ``S`` encoder positions; every query must
    skip the encoder's padding.  This is :func:`key_padding_allowed` expanded over the ``L``
    queries, so the shape states the cross-attention layout explicitly.

    >>> source_padding_allowed([2], source_length=3, query_length=2).int()
    tensor([[[1, 1, 0],
             [1, 1, 0]]], dtype=torch.int32)
    """
    _require_length("query_length", query_length)
    _require_length("source_length", source_length)
    device = require_device("device", device)
    valid = _lengths_tensor(
        "source_lengths", source_lengths, ("source_length", source_length), device
    )  # [B]
    keys = _key_padding(valid, source_length, device)  # [B, 1, S]
    return keys.expand(keys.shape[0], query_length, source_length)  # [B, L, S]


def query_padding_allowed(
    lengths: Sequence[int] | Tensor, query_length: int, *, device: torch.device | str | None = None
) -> Tensor:
    """Query-padding mask ``[B, L]``, **True = the query position is a real token**.

    Not an attention mask: masking padded *keys* does not remove the outputs of padded *queries*.
    Use this on the output or the loss, e.g. ``output * allowed[..., None]`` or
    ``loss[allowed].mean()``.

    >>> query_padding_allowed([2, 3], 3).int()
    tensor([[1, 1, 0],
            [1, 1, 1]], dtype=torch.int32)
    """
    _require_length("query_length", query_length)
    device = require_device("device", device)
    valid = _lengths_tensor("lengths", lengths, ("query_length", query_length), device)  # [B]
    return _key_padding(valid, query_length, device)[:, 0, :]  # [B, L]


def intersect_allowed(*allowed: Tensor) -> Tensor:
    """Logical **and** of Boolean allowed masks (True = may attend), with broadcasting.

    A key is allowed only if every mask allows it -- e.g. causal and key padding.

    >>> intersect_allowed(causal_allowed(3), key_padding_allowed([2], 3))[0].int()
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 1, 0]], dtype=torch.int32)
    """
    return _combine("intersect_allowed", allowed, torch.logical_and)


def union_allowed(*allowed: Tensor) -> Tensor:
    """Logical **or** of Boolean allowed masks (True = may attend), with broadcasting.

    >>> union_allowed(causal_allowed(3), torch.eye(3, dtype=torch.bool).flip(0)).int()
    tensor([[1, 0, 1],
            [1, 1, 0],
            [1, 1, 1]], dtype=torch.int32)
    """
    return _combine("union_allowed", allowed, torch.logical_or)


def _combine(
    name: str, masks: tuple[Tensor, ...], op: Callable[[Tensor, Tensor], Tensor]
) -> Tensor:
    if not masks:
        raise MaskArgumentError(f"{name} needs at least one mask")
    for n, mask in enumerate(masks):
        require_bool(f"{name} argument {n}", mask, "True = may attend")
        require_same_device(f"{name} argument {n}", mask, masks[0], f"{name} argument 0")
    try:
        shape = torch.broadcast_shapes(*(mask.shape for mask in masks))  # type: ignore[no-untyped-call]
    except RuntimeError as error:
        shapes = ", ".join(f"argument {n} {shape_str(mask)}" for n, mask in enumerate(masks))
        raise AttentionShapeError(
            f"{name}: the masks' shapes do not broadcast together ({shapes}); pass masks whose "
            "sizes agree or are 1 in each dimension"
        ) from error
    result = masks[0].expand(shape)
    for mask in masks[1:]:
        result = op(result, mask)
    return result
