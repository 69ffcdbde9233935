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

Two refinements leave the result unchanged: the scores are kept in base-2 units,
:math:`s \log_2 e` (``exp2`` is cheaper than ``exp`` on a CPU), and the value subtracted from them
need not be the exact maximum :math:`m`: any reference cancels in :math:`a / \ell`, so it is
moved only when a tile's largest score exceeds it by more than 8, and most tiles skip the
rescaling.

The forward pass keeps, per query row, only the log-sum-exp :math:`m + \log \ell` of its scores.
The backward pass (FlashAttention-2's) recomputes each tile's weights from it,
:math:`P = e^{S - \mathrm{lse}}`, and accumulates, tile by tile,

.. math::

   \begin{aligned}
   dV &= P^\top dO, & dP &= dO\, V^\top, & D_i &= {\textstyle\sum_d} dO_{id} O_{id}, \\
   dS &= P \circ (dP - D), & dQ &= \mathrm{scale}\cdot dS\, K,
   & dK &= \mathrm{scale}\cdot dS^\top Q,
   \end{aligned}

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


_LOG2_E = math.log2(math.e)
# How far (in exponent units) a tile's largest score may exceed its row's reference before the
# reference is moved: weights stay at most 2^8, far inside every float range.
_RESCALE_ABOVE = 8.0


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

    @property
    def unit(self) -> float:
        """The factor the scores are kept in: ``log2(e)``, base-2 units, or 1, natural units.

        ``exp2`` is about three times faster than ``exp`` on CPU.  When scores may overflow they
        stay in natural units, so that ``log2(e)`` cannot push a finite score past the range.
        """
        return 1.0 if self.check_overflow else _LOG2_E

    def exp_(self, t: Tensor) -> Tensor:
        """In place: ``2^t`` in base-2 units, ``e^t`` in natural units."""
        return t.exp_() if self.check_overflow else t.exp2_()

    def log(self, t: Tensor) -> Tensor:
        return t.log() if self.check_overflow else t.log2()

    def scores(self, q: Tensor, k_t: Tensor, offset: Tensor, i: int, j: int) -> Tensor:
        """One tile of scores minus a per-row offset, ``[N, bq, bk]``, in the plan's units.

        ``k_t`` is the key block already transposed, ``[N, D, bk]``, a slice of a contiguous
        ``[N, D, S]`` (``baddbmm`` on a transposed view is about twice as slow); ``offset`` is
        ``[N, bq]``.  Forbidden entries are -inf; overflow is checked when the plan says so.
        """
        # alpha scales inside the matrix product: no rounding or overflow of scale·Q on the way.
        alpha = self.factor * self.unit
        if self.check_overflow:
            s = torch.baddbmm(q.new_empty(()), q, k_t, beta=0.0, alpha=alpha)
            if not bool(torch.isfinite(s).all()):
                raise NonFiniteError(
                    f"scores Q·Kᵀ·scale overflowed to ±inf in {s.dtype} (scale = "
                    f"{self.factor!r}); the inputs are finite but too large for this dtype: "
                    "normalise the inputs or use a smaller scale"
                )
            s.sub_(offset[..., None])
        else:
            # The offset goes in as baddbmm's input: the product and the subtraction in one pass.
            s = torch.baddbmm(offset[..., None].neg(), q, k_t, alpha=alpha)
        if self.kinds[i][j] == _PARTIAL and self.forbidden is not None:
            mask = self.forbidden
            b = self.block_size
            tile = mask[..., i * b : (i + 1) * b, :] if mask.shape[-2] != 1 else mask
            tile = tile[..., j * b : (j + 1) * b] if mask.shape[-1] != 1 else tile
            s.view(*self.leading, *s.shape[-2:]).masked_fill_(tile, float("-inf"))
        return s

    def require_a_key_per_row(self, lse: Tensor) -> None:
        """Name the first query row that had no allowed key: its log-sum-exp is -inf.

        Found from the forward pass's own result, so a valid call never scans the whole mask
        for it; only a failing one reads the mask again, row by row, to name the row.
        """
        if self.forbidden is not None and bool(torch.isneginf(lse).any()):
            has_key = (~self.forbidden).any(dim=-1)  # [..., Lm]
            require_a_key_per_row(has_key.expand(*self.leading, lse.shape[-1]))  # [..., L]


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _forward(q: Tensor, k: Tensor, v: Tensor, plan: _Plan) -> tuple[Tensor, Tensor]:
    """Online softmax over the tiles; ``q [N, L, D]``, ``k [N, S, D]``, ``v [N, S, Dv]``.

    Returns ``output [N, L, Dv]`` and each row's log-sum-exp ``[N, L]``, in the plan's units.
    """
    n, length, source = q.shape[0], q.shape[1], k.shape[1]
    output = q.new_empty((n, length, v.shape[-1]))  # [N, L, Dv]
    lse = q.new_empty((n, length))  # [N, L]
    b = plan.block_size
    k_t = k.transpose(1, 2).contiguous()  # [N, D, S]
    for i, q0 in enumerate(plan.blocks(length)):
        q_i = q[:, q0 : q0 + b]  # [N, bq, D]
        # Per row, in the plan's units: a reference r (the running maximum, or up to
        # _RESCALE_ABOVE below it), ℓ = Σ 2^(s - r) and a = Σ 2^(s - r)·v over the keys so far.
        reference = q.new_zeros(q_i.shape[:2])  # [N, bq]
        normaliser = q.new_zeros(q_i.shape[:2])  # [N, bq]
        acc = q.new_zeros((*q_i.shape[:2], v.shape[-1]))  # [N, bq, Dv]
        for j, k0 in enumerate(plan.blocks(source)):
            if plan.kinds[i][j] == _SKIP:
                continue  # no query of this block may see a key of that block
            s = plan.scores(q_i, k_t[:, :, k0 : k0 + b], reference, i, j)  # s - r: [N, bq, bk]
            excess = s.amax(dim=-1)  # [N, bq]; -inf where this tile forbids the whole row
            first = normaliser == 0  # rows that have seen no allowed key yet
            moves = (excess > _RESCALE_ABOVE) | (first & (excess > float("-inf")))
            if bool(moves.any()):
                # Move the reference: to the tile's maximum for a row's first keys, up to it for
                # a maximum far above; a row without keys so far stays put (shift 0, not inf).
                shift = torch.where(first, excess, excess.clamp(min=0.0))  # [N, bq]
                shift.masked_fill_(torch.isneginf(shift), 0.0)
                s.sub_(shift[..., None])
                rescale = plan.exp_(shift.neg()).masked_fill_(first, 0.0)  # ℓ and a are 0 there
                normaliser.mul_(rescale)  # ℓ' = 2^(r - r')ℓ
                acc.mul_(rescale[..., None])  # a' = 2^(r - r')a
                reference.add_(shift)
            p = plan.exp_(s)  # 2^(s - r) <= 2^8, in place: [N, bq, bk]
            normaliser.add_(p.sum(dim=-1))
            # a += Σp·v; out of place, so FLOP counters see the product
            acc = torch.baddbmm(acc, p, v[:, k0 : k0 + b])
        # A row with an allowed key has ℓ >= 1 (its largest weight is 2^0); one without has
        # ℓ = 0 and lse = -inf, which require_a_key_per_row reports below.
        torch.div(acc, normaliser[..., None], out=output[:, q0 : q0 + b])
        lse[:, q0 : q0 + b] = reference + plan.log(normaliser)
    plan.require_a_key_per_row(lse)
    return output, lse


def _backward(
    q: Tensor, k: Tensor, v: Tensor, out: Tensor, lse: Tensor, d_out: Tensor, plan: _Plan
) -> tuple[Tensor, Tensor, Tensor]:
    """FlashAttention-2's backward: every tile's weights are recomputed from the row lse."""
    length, source = q.shape[1], k.shape[1]
    d_q, d_k, d_v = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    delta = (d_out * out).sum(dim=-1)  # D_i = rowsum(dO ∘ O): [N, L]
    b = plan.block_size
    k_t = k.transpose(1, 2).contiguous()  # [N, D, S]
    for j, k0 in enumerate(plan.blocks(source)):
        k_j, v_j = k[:, k0 : k0 + b], v[:, k0 : k0 + b]  # [N, bk, D], [N, bk, Dv]
        d_k_j, d_v_j = torch.zeros_like(k_j), torch.zeros_like(v_j)  # this key block's sums
        for i, q0 in enumerate(plan.blocks(length)):
            if plan.kinds[i][j] == _SKIP:
                continue
            q_i, d_out_i = q[:, q0 : q0 + b], d_out[:, q0 : q0 + b]  # [N, bq, D], [N, bq, Dv]
            s = plan.scores(q_i, k_t[:, :, k0 : k0 + b], lse[:, q0 : q0 + b], i, j)
            p = plan.exp_(s)  # P = exp(S - lse), 0 where masked: [N, bq, bk]
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


def _kinds(allowed: Tensor | None, length: int, source: int, block: int) -> list[list[int]]:
    """Classify each (query block, key block) tile by what the mask leaves of it.

    ``allowed`` (True = may attend) keeps its broadcast shape ``[..., Lm, Sm]`` with ``Lm`` in
    ``{1, L}`` and ``Sm`` in ``{1, S}``.  A tile is read as ``uint8``: its maximum is 0 when no key
    is allowed (skip it) and its minimum is 1 when every key is (no masking needed).  The block of
    rows is reduced first, across the contiguous key axis, which is much faster than reducing each
    row of 256 keys; a partial last block is padded with a copy of its own last row or column,
    which changes neither extreme.
    """
    n_q, n_k = math.ceil(length / block), math.ceil(source / block)
    if allowed is None:
        return [[_FULL] * n_k for _ in range(n_q)]
    if allowed.numel() == 0:
        # No mask row (L = 0) or no mask at all (a zero leading dimension, so N = 0 as well):
        # there is no tile with a query in it to compute.
        return [[_SKIP] * n_k for _ in range(n_q)]
    a = allowed.reshape(-1, *allowed.shape[-2:]).view(torch.uint8)  # [M, Lm, Sm]
    rows = block if a.shape[1] != 1 else 1
    cols = block if a.shape[2] != 1 else 1
    pad = -a.shape[1] % rows
    if pad:
        a = torch.cat([a, a[:, -1:].expand(a.shape[0], pad, a.shape[2])], dim=1)
    tiles = a.view(a.shape[0], -1, rows, a.shape[2])  # [M, nq, rows, Sm]
    extremes = []
    for reduce in (torch.amax, torch.amin):
        per_block = reduce(tiles, dim=(0, 2))  # [nq, Sm]
        pad = -per_block.shape[1] % cols
        if pad:
            last = per_block[:, -1:].expand(per_block.shape[0], pad)
            per_block = torch.cat([per_block, last], dim=1)
        per_tile = reduce(per_block.view(per_block.shape[0], -1, cols), dim=2)  # [nq, nk]
        extremes.append(per_tile.expand(n_q, n_k))  # a broadcast axis covers every block
    most, least = extremes
    kinds = torch.where(least == 1, _FULL, torch.where(most == 0, _SKIP, _PARTIAL))
    listed: list[list[int]] = kinds.tolist()
    return listed


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
    >>> shape = (2, 10, 4)                                  # [B, L=S=10, D=4]
    >>> q, k, v = (torch.randn(shape, generator=g, dtype=torch.float64) for _ in "qkv")
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
        # The mask keeps its broadcast shape ([L, S] for a causal mask): no expansion.
        allowed = allowed.reshape((1,) * (len(full) - allowed.ndim) + tuple(allowed.shape))
        forbidden = ~allowed
    # N given, not -1: with L = 0 or Dv = 0 the size of an empty tensor's -1 is ambiguous.
    n = math.prod(leading)
    q, k, v = (x.to(dtype).reshape(n, *x.shape[-2:]) for x in (query, key, value))  # [N, ·, ·]
    plan = _Plan(
        block_size=block_size,
        factor=factor,
        forbidden=forbidden,
        leading=leading,
        kinds=tuple(tuple(row) for row in _kinds(allowed, length, source, block_size)),
        check_overflow=_scores_may_overflow(q, k, factor, dtype),
    )
    output: Tensor = _TiledAttention.apply(q, k, v, plan)  # type: ignore[no-untyped-call]
    return output.to(query.dtype).reshape(*leading, length, value.shape[-1])  # [..., L, Dv]
