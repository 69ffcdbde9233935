r"""Exact attention computed block by block over the keys, never materialising ``[L, S]`` scores.

For each block of ``block_size`` keys the running row maximum :math:`m`, the running normaliser
:math:`\ell` and the running weighted sum :math:`a` are updated (the online softmax):

.. math::

   m' = \max(m, \max_j s_j), \quad
   \ell' = e^{m - m'} \ell + \sum_j e^{s_j - m'}, \quad
   a' = e^{m - m'} a + \sum_j e^{s_j - m'} v_j,

and the output is :math:`a / \ell`: the same softmax-weighted sum as the dense computation, with
one block of scores ``[..., L, block_size]`` as extra memory instead of ``[..., L, S]``.  Key
blocks that a mask forbids for every query are skipped, and within a block only the query rows
that may see one of its keys are computed (about half the work for a causal mask).
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
    block_size: int = 512,
    scale: float | None = None,
) -> Tensor:
    r"""Exact attention over key blocks with the online softmax; returns ``output [..., L, Dv]``.

    Args:
        query: ``[..., L, D]`` floating point; any leading (batch, head) dimensions.
        key: ``[..., S, D]`` with the same leading dimensions, dtype and device.
        value: ``[..., S, Dv]``.
        allowed: optional **Boolean, True = may attend**, broadcastable to ``[..., L, S]``; it is
            read one block at a time (a broadcast ``[L, S]`` causal mask is never expanded).
        block_size: keys per block; it need not divide ``S``.
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
    running_max = query.new_full((*leading, length), float("-inf"), dtype=acc_dtype)  # [..., L]
    normaliser = query.new_zeros((*leading, length), dtype=acc_dtype)  # [..., L]
    acc = query.new_zeros((*leading, length, value.shape[-1]), dtype=acc_dtype)  # [..., L, Dv]

    for start in range(0, source, block_size):
        stop = min(start + block_size, source)
        rows = slice(0, length)
        block_mask = None
        if mask is not None:
            # The mask keeps its broadcast shape ([L, S] for a causal mask): no expansion.
            block_mask = mask if mask.shape[-1] == 1 else mask[..., start:stop]
            seen = block_mask.any(dim=-1).reshape(-1, block_mask.shape[-2]).any(dim=0)
            hit = seen.nonzero()  # rows (of the mask) that may see a key of this block
            if hit.numel() == 0:
                continue  # a block forbidden for every query: skip it
            if block_mask.shape[-2] != 1:
                rows = slice(int(hit[0]), int(hit[-1]) + 1)
                block_mask = block_mask[..., rows, :]
        q = query[..., rows, :]  # [..., r, D]
        scores = q @ key[..., start:stop, :].transpose(-2, -1)  # [..., r, bk]
        if overflow_possible and not bool(torch.isfinite(scores).all()):
            raise NonFiniteError(OVERFLOW_MESSAGE.format(dtype=query.dtype))
        scores = scores.to(acc_dtype).mul_(factor)
        if block_mask is not None:
            scores.masked_fill_(~block_mask, float("-inf"))  # before the softmax
        old_max = running_max[..., rows]  # [..., r]
        new_max = torch.maximum(old_max, scores.amax(dim=-1))  # [..., r]
        # Rows with no allowed key so far keep max -inf; shift them by 0 to avoid inf - inf.
        shift = torch.where(torch.isneginf(new_max), torch.zeros_like(new_max), new_max)
        rescale = torch.exp(old_max - shift)  # [..., r], 0 where old_max is -inf
        scores.sub_(shift[..., None]).exp_()  # p = exp(s - m'), in place: [..., r, bk]
        normaliser[..., rows] = normaliser[..., rows] * rescale + scores.sum(dim=-1)
        block_values = value[..., start:stop, :].to(acc_dtype)  # [..., bk, Dv]
        acc[..., rows, :] = acc[..., rows, :] * rescale[..., None] + scores @ block_values
        running_max[..., rows] = new_max

    require_a_key_per_row(normaliser > 0)  # [..., L]
    return (acc / normaliser[..., None]).to(query.dtype)  # [..., L, Dv]
