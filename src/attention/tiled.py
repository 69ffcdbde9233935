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

The forward pass keeps, per query row, only the log-sum-exp :math:`m + \log \ell` of its scores.
The backward pass (FlashAttention-2's) recomputes each tile's weights from it,
:math:`P = e^{S - \mathrm{lse}}`, and accumulates, tile by tile,

.. math::

   dV = P^\top dO, \quad dP = dO\, V^\top, \quad D_i = \textstyle\sum_d dO_{id} O_{id}, \quad
   dS = P \circ (dP - D), \quad dQ = \mathrm{scale}\cdot dS\, K, \quad
   dK = \mathrm{scale}\cdot dS^\top Q,

so training also never holds an ``[L, S]`` tensor.  Half-precision inputs are computed in float32
(as PyTorch's CPU kernels do) and the results are rounded back to the input dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from attention._validate import (
    broadcast_to,
    check_inputs,
    require_bool,
    require_same_device,
    resolve_scale,
    shape_str,
)
from attention.errors import AttentionShapeError, MaskArgumentError, NonFiniteError
from attention.scaled_dot_product import require_a_key_per_row

__all__ = ["tiled_attention"]

_SKIP, _FULL, _PARTIAL = 0, 1, 2  # what the mask leaves of a tile: nothing, all of it, some of it


@dataclass(frozen=True)
class _Plan:
    """Everything both passes need besides the tensors: tiling, scale and the mask per tile."""

    block_size: int
    factor: float
    forbidden: Tensor | None  # Boolean, True = masked out; the caller's broadcast shape
    leading: tuple[int, ...]  # the caller's leading dimensions, N = their product
    kinds: tuple[tuple[int, ...], ...]  # kinds[i][j]: _SKIP, _FULL or _PARTIAL
    check_overflow: bool  # some score could overflow the compute dtype: check every tile

    def blocks(self, length: int) -> range:
        return range(0, length, self.block_size)

    def scores(self, q: Tensor, k: Tensor, i: int, j: int) -> Tensor:
        """Scaled (and masked) scores of one tile ``[N, bq, bk]``, overflow checked."""
        # alpha scales inside the matrix product: no rounding or overflow of scale·Q on the way.
        s = torch.baddbmm(q.new_empty(()), q, k.transpose(1, 2), beta=0.0, alpha=self.factor)
        if self.check_overflow and not bool(torch.isfinite(s).all()):
            raise NonFiniteError(
                f"scores Q·Kᵀ·scale overflowed to ±inf in {s.dtype} (scale = {self.factor!r}); "
                "the inputs are finite but too large for this dtype: normalise the inputs or "
                "use a smaller scale"
            )
        if self.kinds[i][j] == _PARTIAL and self.forbidden is not None:
            mask = self.forbidden
            b = self.block_size
            tile = mask[..., i * b : (i + 1) * b, :] if mask.shape[-2] != 1 else mask
            tile = tile[..., j * b : (j + 1) * b] if mask.shape[-1] != 1 else tile
            s.view(*self.leading, *s.shape[-2:]).masked_fill_(tile, float("-inf"))
        return s


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _forward(q: Tensor, k: Tensor, v: Tensor, plan: _Plan) -> tuple[Tensor, Tensor]:
    """Online softmax over the tiles; ``q [N, L, D]``, ``k [N, S, D]``, ``v [N, S, Dv]``.

    Returns ``output [N, L, Dv]`` and the log-sum-exp of each row's scores ``[N, L]``.
    """
    n, length, source = q.shape[0], q.shape[1], k.shape[1]
    output = q.new_empty((n, length, v.shape[-1]))  # [N, L, Dv]
    lse = q.new_empty((n, length))  # [N, L]
    b = plan.block_size
    for i, q0 in enumerate(plan.blocks(length)):
        q_i = q[:, q0 : q0 + b]  # [N, bq, D]
        running_max = q.new_full(q_i.shape[:2], float("-inf"))  # [N, bq]
        normaliser = q.new_zeros(q_i.shape[:2])  # [N, bq]
        acc = q.new_zeros((*q_i.shape[:2], v.shape[-1]))  # [N, bq, Dv]
        for j, k0 in enumerate(plan.blocks(source)):
            if plan.kinds[i][j] == _SKIP:
                continue  # no query of this block may see a key of that block
            s = plan.scores(q_i, k[:, k0 : k0 + b], i, j)  # [N, bq, bk]
            new_max = torch.maximum(running_max, s.amax(dim=-1))  # [N, bq]
            # A row with no allowed key so far keeps max -inf; shift it by 0, not by inf - inf.
            shift = new_max.masked_fill(torch.isneginf(new_max), 0.0)
            rescale = torch.exp(running_max - shift)  # [N, bq]; 0 where the old max is -inf
            p = s.sub_(shift[..., None]).exp_()  # exp(s - m'), in place: [N, bq, bk]
            normaliser.mul_(rescale).add_(p.sum(dim=-1))  # ℓ' = e^(m - m')ℓ + Σp
            # a' = e^(m - m')a + Σp·v; out of place, so FLOP counters see the product
            acc = torch.baddbmm(acc.mul_(rescale[..., None]), p, v[:, k0 : k0 + b])
            running_max = new_max
        # Every row has an allowed key (checked before the loop), so ℓ > 0 and m is finite.
        torch.div(acc, normaliser[..., None], out=output[:, q0 : q0 + b])
        lse[:, q0 : q0 + b] = running_max + normaliser.log()
    return output, lse


def _backward(
    q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, d_out: Tensor, plan: _Plan
) -> tuple[Tensor, Tensor, Tensor]:
    """FlashAttention-2's backward: every tile's weights are recomputed from the row lse."""
    length, source = q.shape[1], k.shape[1]
    d_q, d_k, d_v = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    delta = (d_out * out).sum(dim=-1)  # D_i = rowsum(dO ∘ O): [N, L]
    b = plan.block_size
    for j, k0 in enumerate(plan.blocks(source)):
        k_j, v_j = k[:, k0 : k0 + b], v[:, k0 : k0 + b]  # [N, bk, D], [N, bk, Dv]
        d_k_j, d_v_j = torch.zeros_like(k_j), torch.zeros_like(v_j)  # this key block's sums
        for i, q0 in enumerate(plan.blocks(length)):
            if plan.kinds[i][j] == _SKIP:
                continue
            q_i, d_out_i = q[:, q0 : q0 + b], d_out[:, q0 : q0 + b]  # [N, bq, D], [N, bq, Dv]
            s = plan.scores(q_i, k_j, i, j)  # [N, bq, bk]
            p = s.sub_(lse[:, q0 : q0 + b, None]).exp_()  # P = exp(S - lse), 0 where masked
            # Products out of place (not baddbmm_), so FLOP counters see them.
            d_v_j = torch.baddbmm(d_v_j, p.transpose(1, 2), d_out_i)  # dV += Pᵀ dO
            d_p = torch.bmm(d_out_i, v_j.transpose(1, 2))  # dP = dO Vᵀ: [N, bq, bk]
            d_s = d_p.sub_(delta[:, q0 : q0 + b, None]).mul_(p)  # dS = P ∘ (dP − D)
            rows = slice(q0, q0 + b)
            # dQ += scale·dS K and dK += scale·dSᵀ Q
            d_q[:, rows] = torch.baddbmm(d_q[:, rows], d_s, k_j, alpha=plan.factor)
            d_k_j = torch.baddbmm(d_k_j, d_s.transpose(1, 2), q_i, alpha=plan.factor)
        d_k[:, k0 : k0 + b], d_v[:, k0 : k0 + b] = d_k_j, d_v_j
    return d_q, d_k, d_v


class _TiledAttention(torch.autograd.Function):
    """Autograd wrapper: saves ``q, k, v, output`` and the row log-sum-exp, all linear in L."""

    @staticmethod
    def forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, plan: _Plan) -> Tensor:
        out, lse = _forward(q, k, v, plan)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.plan = plan
        return out

    @staticmethod
    def backward(ctx: Any, d_out: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        if torch.is_grad_enabled():
            raise NotImplementedError(
                "tiled_attention has no second derivative: its backward pass is not itself "
                "differentiable, so create_graph=True (double backward, gradient penalties) is "
                "not supported; use attention.scaled_dot_product_attention for that"
            )
        q, k, v, out, lse = ctx.saved_tensors
        d_q, d_k, d_v = _backward(q, k, v, out, lse, d_out.to(out.dtype), ctx.plan)
        return d_q, d_k, d_v, None


def _kinds(forbidden: Tensor | None, length: int, source: int, block: int) -> list[list[int]]:
    """Classify each (query block, key block) tile by what the mask leaves of it."""
    n_q, n_k = math.ceil(length / block), math.ceil(source / block)
    if forbidden is None:
        return [[_FULL] * n_k for _ in range(n_q)]
    kinds = []
    for q0 in range(0, length, block):
        rows = forbidden[..., q0 : q0 + block, :] if forbidden.shape[-2] != 1 else forbidden
        row_kinds = []
        for k0 in range(0, source, block):
            tile = rows[..., k0 : k0 + block] if forbidden.shape[-1] != 1 else rows
            if bool(tile.all()):
                row_kinds.append(_SKIP)
            elif bool(tile.any()):
                row_kinds.append(_PARTIAL)
            else:
                row_kinds.append(_FULL)
        kinds.append(row_kinds)
    return kinds


def _scores_may_overflow(query: Tensor, key: Tensor, factor: float, dtype: torch.dtype) -> bool:
    """Whether some ``factor·q·k`` could overflow ``dtype``: ``|q·k| <= |q|·|k|``."""
    if query.numel() == 0:
        return False
    largest_q = query.norm(dim=-1).max().item()  # computed in dtype; inf only makes it check
    largest_k = key.norm(dim=-1).max().item()
    return bool(largest_q * largest_k * abs(factor) >= torch.finfo(dtype).max)


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

    Differentiable: the backward pass recomputes each tile from the saved per-row log-sum-exp, so
    neither pass holds an ``[L, S]`` tensor.  Half-precision inputs are computed in float32.

    Args:
        query: ``[..., L, D]`` floating point; any leading (batch, head) dimensions.
        key: ``[..., S, D]`` with the same leading dimensions, dtype and device.
        value: ``[..., S, Dv]``.
        allowed: optional **Boolean, True = may attend**, broadcastable to ``[..., L, S]``; it is
            read one block at a time (a broadcast ``[L, S]`` causal mask is never expanded).
        block_size: queries and keys per tile; it need not divide ``L`` or ``S``.
        scale: factor applied to :math:`QK^\top`; default :math:`1/\sqrt{D}`.

    Raises the same errors as :func:`attention.scaled_dot_product_attention`, plus
    :class:`~attention.errors.MaskArgumentError` for a ``block_size`` that is not an int >= 1,
    and :class:`~attention.errors.NonFiniteError` when ``scale`` is infinite in the compute dtype
    (float32 for half-precision inputs) or a score overflows it.

    >>> import torch
    >>> from attention import causal_allowed, scaled_dot_product_attention
    >>> g = torch.Generator().manual_seed(0)
    >>> q, k, v = (torch.randn(2, 10, 4, generator=g, dtype=torch.float64) for _ in range(3))
    >>> tiled = tiled_attention(q, k, v, causal_allowed(10), block_size=3)  # 3 ∤ 10
    >>> dense, _ = scaled_dot_product_attention(q, k, v, causal_allowed(10))
    >>> bool((tiled - dense).abs().max() < 1e-12)
    True

    Gradients flow to ``query``, ``key`` and ``value``:

    >>> q.requires_grad_(True)
    tensor(...)
    >>> tiled_attention(q, k, v, causal_allowed(10), block_size=3).sum().backward()
    >>> q.grad.shape
    torch.Size([2, 10, 4])
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
    dtype = _compute_dtype(query.dtype)
    if math.isinf(torch.tensor(factor, dtype=dtype).item()):
        raise NonFiniteError(
            f"scale = {factor!r} overflows to inf in {dtype}, the dtype the scores are computed "
            f"in (largest finite: {torch.finfo(dtype).max:.4g}); use a smaller scale"
        )
    leading = tuple(query.shape[:-2])
    forbidden = None
    if allowed is not None:
        require_bool("allowed", allowed)
        require_same_device("allowed", allowed, query)
        full = (*leading, length, source)
        broadcast_to("allowed", allowed, full, "[..., L, S]")  # validates; result unused
        # Rows with no allowed key, read in the mask's own (broadcast) shape: [L] for causal.
        require_a_key_per_row(allowed.any(dim=-1).expand(full[:-1]))  # [..., L]
        # The mask keeps its broadcast shape ([L, S] for a causal mask): no expansion.
        forbidden = ~allowed.reshape((1,) * (len(full) - allowed.ndim) + tuple(allowed.shape))
    q, k, v = (x.to(dtype).reshape(-1, *x.shape[-2:]) for x in (query, key, value))  # [N, ·, ·]
    plan = _Plan(
        block_size=block_size,
        factor=factor,
        forbidden=forbidden,
        leading=leading,
        kinds=tuple(tuple(row) for row in _kinds(forbidden, length, source, block_size)),
        check_overflow=_scores_may_overflow(q, k, factor, dtype),
    )
    output: Tensor = _TiledAttention.apply(q, k, v, plan)  # type: ignore[no-untyped-call]
    return output.to(query.dtype).reshape(*leading, length, value.shape[-1])  # [..., L, Dv]
