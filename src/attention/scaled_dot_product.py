r"""Scaled dot-product attention, written out step by step.

.. math::

   A = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right), \qquad O = A V

``Q [B, L, D]``, ``K [B, S, D]``, ``V [B, S, Dv]``; the scores and ``A`` are ``[B, L, S]`` and the
output ``O`` is ``[B, L, Dv]``.  The softmax runs over the key axis ``S`` (the last one), so each
query row of ``A`` sums to 1 over the keys it may see.

Masks, each with its convention in its name:

* ``allowed`` -- Boolean, **True = may attend** (the convention of
  :func:`torch.nn.functional.scaled_dot_product_attention`);
* ``additive`` -- floating point, **added to the scores** (0 = allowed, ``-inf`` = forbidden): the
  lesson's :math:`M`.

Both are applied *before* the softmax.  A query row with no allowed key raises
:class:`~attention.errors.NoAllowedKeyError` instead of returning NaN.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention._validate import (
    broadcast_to,
    check_inputs,
    check_masked_scores,
    check_query_key,
    check_scores,
    compute_dtype,
    require_additive,
    require_bool,
    require_same_device,
    resolve_scale,
    score_bound,
    shape_str,
)
from attention.errors import (
    AttentionShapeError,
    MaskDtypeError,
    NoAllowedKeyError,
)

__all__ = ["attention_scores", "scaled_dot_product_attention"]


def _check_three_dimensional(query: Tensor, key: Tensor, value: Tensor) -> None:
    for name, tensor, layout in (
        ("query", query, "[B, L, D]"),
        ("key", key, "[B, S, D]"),
        ("value", value, "[B, S, Dv]"),
    ):
        if isinstance(tensor, Tensor) and tensor.ndim != 3:
            raise AttentionShapeError(
                f"{name} must be 3-D {layout}, got {tensor.ndim}-D shape {shape_str(tensor)}"
            )


def scaled_scores(query: Tensor, key: Tensor, factor: float) -> Tensor:
    """``factor · Q Kᵀ`` in :func:`compute_dtype` (float32 for half), checked against overflow.

    The query is scaled before the product, in the wide dtype, as torch's CPU kernels do: a
    float16 ``q = 1000`` times ``scale = 100`` is finite in float32 but not in float16.  The scores
    must then be finite in the *inputs'* dtype, so that they can be returned in it; the check
    reads them only when the Cauchy-Schwarz bound says an entry could be out of range.
    """
    wide = compute_dtype(query.dtype)
    scores = (query.to(wide) * factor) @ key.to(wide).transpose(-2, -1)  # [..., L, S]
    if score_bound(query, key, factor) >= torch.finfo(query.dtype).max:
        check_scores(scores, query.dtype)
    return scores


def attention_scores(query: Tensor, key: Tensor, *, scale: float | None = None) -> Tensor:
    r"""Return the scaled scores :math:`QK^\top/\sqrt{d_k}` (no mask, no softmax).

    ``query [..., L, D]`` and ``key [..., S, D]`` (the same leading dimensions) give scores
    ``[..., L, S]`` in the inputs' dtype.  ``scale`` replaces the default :math:`1/\sqrt{D}`.
    Half-precision inputs are multiplied in float32, as torch's CPU kernels do.  No mask is
    involved, so there is no mask convention here.

    Raises:
        ArgumentTypeError: ``query`` or ``key`` is not a tensor, or ``scale`` is not a real
            number (a string or a bool).
        AttentionShapeError: an input has fewer than 2 dimensions, the leading dimensions differ,
            ``D`` differs between query and key, or ``D == 0``.
        InputDtypeError: the inputs are not one floating dtype.
        DeviceError: the inputs are on different devices, or on the meta device.
        NonFiniteError: an input holds NaN/±inf, ``scale`` is not finite in the dtype the scores
            are computed in, or a score overflows the inputs' dtype.

    >>> import torch
    >>> q = torch.tensor([[[1.0, 1.0]]], dtype=torch.float64)    # [1, 1, 2]
    >>> k = torch.tensor([[[2.0, 0.0]]], dtype=torch.float64)    # [1, 1, 2]
    >>> attention_scores(q, k)                                   # 2 / sqrt(2)
    tensor([[[1.4142]]], dtype=torch.float64)
    >>> # 1e39 is a finite Python float but infinite in float32
    >>> attention_scores(q.float(), k.float(), scale=1e39)
    Traceback (most recent call last):
    attention.errors.NonFiniteError: scale=1e+39 is infinite in torch.float32, where ...
    """
    _, _, d_k = check_query_key(query, key, leading="leading")
    factor = resolve_scale(scale, d_k, query.dtype)
    return scaled_scores(query, key, factor).to(query.dtype)  # [..., L, S]


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    allowed: Tensor | None = None,
    *,
    additive: Tensor | None = None,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    r"""Single-head attention with the lesson's input contract; returns ``(output, weights)``.

    Half-precision inputs are computed in float32 (scores, softmax, the weighted sum), as torch's
    CPU kernels do, and returned in their own dtype.

    Args:
        query: ``[B, L, D]`` floating point.
        key: ``[B, S, D]``, same dtype and device.
        value: ``[B, S, Dv]``, same dtype and device.
        allowed: optional **Boolean, True = may attend**, broadcastable to ``[B, L, S]``
            (``[L, S]`` for one mask shared by the batch, ``[B, 1, S]`` for key padding).
        additive: optional **additive** float mask broadcastable to ``[B, L, S]``, added to the
            scores before the softmax (0 = keep, ``-inf`` = forbid, finite values = bias).
        scale: factor applied to :math:`QK^\top`; default :math:`1/\sqrt{D}`.

    Returns:
        ``output [B, L, Dv]`` and ``weights [B, L, S]``; each weights row sums to 1 and is exactly
        0 at forbidden keys.

    Raises:
        ArgumentTypeError: an input or a mask is not a tensor, or ``scale`` is not a real number.
        AttentionShapeError: an input is not 3-D, batch sizes differ, ``D`` or ``S`` disagree
            between arguments, ``S == 0`` or ``D == 0``, or a mask does not broadcast.
        DeviceError: an argument is on another device than ``query``, or on the meta device.
        NonFiniteError: an input holds NaN/±inf, ``scale`` is not finite in the dtype the scores
            are computed in, the scores overflow the inputs' dtype, or a finite ``additive``
            pushes a score out of that range.
        NoAllowedKeyError: some query row has no allowed key (its softmax would be NaN).
        InputDtypeError: query/key/value are not one floating dtype.
        MaskDtypeError: ``allowed`` is not ``torch.bool``, or ``additive`` is not floating point
            in the inputs' dtype.
        MaskValueError: ``additive`` holds NaN or ``+inf``.

    All errors subclass ``ValueError`` or ``TypeError``.

    Causal example from the lesson: with all scores 0 every query averages the values it may see.

    >>> import torch
    >>> q = k = torch.zeros(1, 3, 2, dtype=torch.float64)       # [B=1, L=S=3, D=2]
    >>> v = torch.tensor([[[2.0], [4.0], [8.0]]], dtype=torch.float64)  # [1, 3, 1]
    >>> allowed = torch.ones(3, 3, dtype=torch.bool).tril()     # True = may attend
    >>> out, weights = scaled_dot_product_attention(q, k, v, allowed)
    >>> out[0, :, 0]                                            # 2, 3, 14/3
    tensor([2.0000, 3.0000, 4.6667], dtype=torch.float64)
    >>> weights[0]
    tensor([[1.0000, 0.0000, 0.0000],
            [0.5000, 0.5000, 0.0000],
            [0.3333, 0.3333, 0.3333]], dtype=torch.float64)
    >>> scaled_dot_product_attention(q, k, v, allowed.to("meta"))
    Traceback (most recent call last):
    attention.errors.DeviceError: allowed is on meta but query is on cpu; move it first, ...
    """
    _check_three_dimensional(query, key, value)
    _, _, d_k = check_inputs(query, key, value)
    factor = resolve_scale(scale, d_k, query.dtype)
    shape = (query.shape[0], query.shape[1], key.shape[1])  # [B, L, S]
    if allowed is not None:
        check_allowed(allowed, query, shape, "[B, L, S]")
    if additive is not None:
        check_additive(additive, query, shape, "[B, L, S]")
    return attend(query, key, value, allowed, additive, factor)


def check_allowed(allowed: Tensor, query: Tensor, shape: tuple[int, ...], layout: str) -> None:
    """Check a Boolean allowed mask (True = may attend) against the inputs and ``shape``."""
    if isinstance(allowed, Tensor):
        require_same_device("allowed", allowed, query)
    require_bool("allowed", allowed)
    broadcast_to("allowed", allowed, shape, layout)


def check_additive(additive: Tensor, query: Tensor, shape: tuple[int, ...], layout: str) -> None:
    """Check an additive float mask (0 = keep, -inf = forbid) against the inputs and ``shape``."""
    if isinstance(additive, Tensor):
        require_same_device("additive", additive, query)
    require_additive("additive", additive)
    if additive.dtype != query.dtype:
        raise MaskDtypeError(
            f"additive has dtype {additive.dtype} but the scores are {query.dtype}; build it "
            "in the query's dtype, e.g. allowed_to_additive(allowed, dtype=query.dtype)"
        )
    broadcast_to("additive", additive, shape, layout)


def attend(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    allowed: Tensor | None,
    additive: Tensor | None,
    factor: float,
) -> tuple[Tensor, Tensor]:
    """The computation behind :func:`scaled_dot_product_attention`, on checked arguments.

    Callers have validated every argument (the public function, or the multi-head module in its
    own terms); this only checks what depends on the computed values: overflow and empty rows.
    """
    scores = scaled_scores(query, key, factor)  # [..., L, S], float32 for half inputs
    if additive is not None:
        wide = additive.to(scores.dtype)
        finite = wide.masked_fill(torch.isneginf(wide), 0.0)
        largest = finite.abs().max().item() if finite.numel() else 0.0
        scores = scores + wide  # [..., L, S]
        if score_bound(query, key, factor) + largest >= torch.finfo(query.dtype).max:
            check_masked_scores(scores, wide, query.dtype)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))  # before the softmax
    if additive is not None:
        masks = "allowed and additive" if allowed is not None else "additive"
        require_a_key_per_row((scores > float("-inf")).any(dim=-1), masks)  # [..., L]
    elif allowed is not None:
        # Read the mask in its own (broadcast) shape: [L] for a causal mask, not [B, L, S].
        require_a_key_per_row(allowed.any(dim=-1).expand(scores.shape[:-1]), "allowed")
    weights = torch.softmax(scores, dim=-1)  # [..., L, S], over the key axis
    output = weights @ value.to(weights.dtype)  # [..., L, Dv]
    return output.to(query.dtype), weights.to(query.dtype)


def require_a_key_per_row(has_key: Tensor, masks: str = "the mask") -> None:
    """Raise :class:`NoAllowedKeyError` naming the first query row with no allowed key.

    ``has_key`` is Boolean ``[..., L]``: True where the query row may attend to some key;
    ``masks`` names the caller's mask arguments (``"allowed"``, ``"additive"``).
    """
    if not bool(has_key.all()):
        index = tuple(int(i) for i in (~has_key).nonzero()[0])
        names = _index_names(len(index))
        where = ", ".join(f"{name} {i}" for name, i in zip(names, index, strict=True))
        raise NoAllowedKeyError(
            f"query row ({where}) has no allowed key: every key is masked (by {masks}), so its "
            "softmax would be 0/0 = NaN; give every query at least one allowed key, or drop the "
            "row and mask its output instead"
        )


def _index_names(ndim: int) -> tuple[str, ...]:
    if ndim == 2:
        return ("batch", "position")
    if ndim == 3:
        return ("batch", "head", "position")
    return (*(f"dim {i}" for i in range(ndim - 1)), "position")
