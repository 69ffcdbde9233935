r"""Exact attention computed tile by tile, never materialising the ``[L, S]`` scores.

Queries are taken ``block_size`` at a time; for each block of queries the keys are visited in
blocks of ``block_size``, and for each key block the running row maximum :math:`m`, the running
normaliser :math:`\ell` and the running weighted sum :math:`a` are updated (the online softmax):

.. math::

   m' = \max(m, \max_j s_j), \quad
   \ell' = e^{m - m'} \ell + \sum_j e^{s_j - m'}, \quad
   a' = e^{m - m'} a + \sum_j e^{s_j - m'} v_j,

and the output is :math:`a / \ell`: the same softmax-weighted sum as the dense computation, with
one tile of scores ``[..., block_size, block_size]`` as extra memory instead of ``[..., L, S]``.
Tiles that a mask forbids entirely are skipped (about half of them for a causal mask), and tiles
it allows entirely are not masked at all.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention._validate import (
    OVERFLOW_MESSAGE,
    broadcast_to,
    check_inputs,
    require_bool,
    require_same_device,
    resolve_scale,
    scores_may_overflow,
    shape_str,
)
from attention.errors import AttentionShapeError, MaskArgumentError, NonFiniteError
from attention.scaled_dot_product import require_a_key_per_row

__all__ = ["tiled_attention"]


def tiled_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    allowed: Tensor | None = None,
    *,
    block_size: int = 256,
    scale: float | None = None,
) -> Tensor:
    r"""Exact attention over tiles with the online softmax; returns ``output [..., L, Dv]``.

    Args:
        query: ``[..., L, D]`` floating point; any leading (batch, head) dimensions.
        key: ``[..., S, D]`` with the same leading dimensions, dtype and device.
        value: ``[..., S, Dv]``.
        allowed: optional **Boolean, True = may attend**, broadcastable to ``[..., L, S]``; it is
            read one block at a time (a broadcast ``[L, S]`` causal mask is never expanded).
        block_size: queries and keys per tile; it need not divide ``L`` or ``S``.
        scale: factor applied to :math:`QK^\top`; default :math:`1/\sqrt{D}`.

    Raises the same errors as :func:`attention.scaled_dot_product_attention`, plus
    :class:`~attention.errors.MaskArgumentError` for ``block_size < 1``.

    >>> import torch
    >>> from attention import causal_allowed, scaled_dot_product_attention
    >>> g = torch.Generator().manual_seed(0)
    >>> q, k, v = (torch.randn(2, 10, 4, generator=g, dtype=torch.float64) for _ in range(3))
    >>> tiled = tiled_attention(q, k, v, causal_allowed(10), block_size=3)  # 3 ∤ 10
    >>> dense, _ = scaled_dot_product_attention(q, k, v, causal_allowed(10))
    >>> bool((tiled - dense).abs().max() < 1e-12)
    True
    """
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise MaskArgumentError(f"block_size must be an int >= 1, got {block_size!r}")
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        if isinstance(tensor, Tensor) and tensor.ndim < 2:
            raise AttentionShapeError(
                f"{name} must have at least 2 dimensions [..., positions, features], got shape "
                f"{shape_str(tensor)}"
            )
    length, source, d_k = check_inputs(query, key, value, leading="leading")
    factor = resolve_scale(scale, d_k)
    leading = query.shape[:-2]
    mask = None
    if allowed is not None:
        require_bool("allowed", allowed)
        require_same_device("allowed", allowed, query)
        full = (*leading, length, source)
        broadcast_to("allowed", allowed, full, "[..., L, S]")  # validates; result unused
        mask = allowed.reshape((1,) * (len(full) - allowed.ndim) + tuple(allowed.shape))
    overflow_possible = scores_may_overflow(query, key, factor)

    acc_dtype = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    output = query.new_empty((*leading, length, value.shape[-1]), dtype=acc_dtype)  # [..., L, Dv]
    has_key = query.new_zeros((*leading, length), dtype=torch.bool)  # [..., L]

    for q0 in range(0, length, block_size):
        q1 = min(q0 + block_size, length)
        q = query[..., q0:q1, :]  # [..., bq, D]
        running_max = q.new_full((*leading, q1 - q0), float("-inf"), dtype=acc_dtype)  # [..., bq]
        normaliser = q.new_zeros((*leading, q1 - q0), dtype=acc_dtype)  # [..., bq]
        acc = q.new_zeros((*leading, q1 - q0, value.shape[-1]), dtype=acc_dtype)  # [..., bq, Dv]
        for k0 in range(0, source, block_size):
            k1 = min(k0 + block_size, source)
            tile = None
            if mask is not None:
                # The mask keeps its broadcast shape ([L, S] for a causal mask): no expansion.
                tile = mask[..., q0:q1, :] if mask.shape[-2] != 1 else mask
                tile = tile[..., k0:k1] if mask.shape[-1] != 1 else tile  # [..., bq, bk]
                if not bool(tile.any()):
                    continue  # no query of this block may see a key of that block: skip it
                if bool(tile.all()):
                    tile = None  # nothing forbidden in this tile: no masking needed
            scores = q @ key[..., k0:k1, :].transpose(-2, -1)  # [..., bq, bk]
            if overflow_possible and not bool(torch.isfinite(scores).all()):
                raise NonFiniteError(OVERFLOW_MESSAGE.format(dtype=query.dtype))
            scores = scores.to(acc_dtype).mul_(factor)
            if tile is not None:
                scores.masked_fill_(~tile, float("-inf"))  # before the softmax
            new_max = torch.maximum(running_max, scores.amax(dim=-1))  # [..., bq]
            # Rows with no allowed key so far keep max -inf; shift them by 0, not inf - inf.
            shift = torch.where(torch.isneginf(new_max), torch.zeros_like(new_max), new_max)
            rescale = torch.exp(running_max - shift)  # [..., bq], 0 where the old max is -inf
            scores.sub_(shift[..., None]).exp_()  # p = exp(s - m'), in place: [..., bq, bk]
            normaliser = normaliser * rescale + scores.sum(dim=-1)  # ℓ' = e^(m - m')ℓ + Σp
            block_values = value[..., k0:k1, :].to(acc_dtype)  # [..., bk, Dv]
            acc = acc * rescale[..., None] + scores @ block_values  # a' = e^(m - m')a + Σp·v
            running_max = new_max
        output[..., q0:q1, :] = acc / normaliser[..., None]  # [..., bq, Dv]
        has_key[..., q0:q1] = normaliser > 0

    require_a_key_per_row(has_key)  # [..., L]
    return output.to(query.dtype)  # [..., L, Dv]
