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
    OVERFLOW_MESSAGE,
    broadcast_to,
    check_inputs,
    require_additive,
    require_bool,
    require_same_device,
    resolve_scale,
    scores_may_overflow,
    shape_str,
)
from attention.errors import (
    AttentionShapeError,
    MaskDtypeError,
    NoAllowedKeyError,
    NonFiniteError,
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


def attention_scores(query: Tensor, key: Tensor, *, scale: float | None = None) -> Tensor:
    r"""Return the scaled scores :math:`QK^\top/\sqrt{d_k}` (no mask, no softmax).

    ``query [..., L, D]`` and ``key [..., S, D]`` give scores ``[..., L, S]``.  ``scale`` replaces
    the default :math:`1/\sqrt{D}`.  No mask is involved, so there is no mask convention here.

    >>> import torch
    >>> q = torch.tensor([[[1.0, 1.0]]], dtype=torch.float64)    # [1, 1, 2]
    >>> k = torch.tensor([[[2.0, 0.0]]], dtype=torch.float64)    # [1, 1, 2]
    >>> attention_scores(q, k)                                   # 2 / sqrt(2)
    tensor([[[1.4142]]], dtype=torch.float64)
    """
    factor = resolve_scale(scale, query.shape[-1])
    return (query * factor) @ key.transpose(-2, -1)  # [..., L, S]; scaling Q is the cheaper side


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
        AttentionShapeError: an input is not 3-D, batch sizes differ, ``D`` or ``S`` disagree
            between arguments, ``S == 0`` or ``D == 0``, or a mask does not broadcast.
        NonFiniteError: an input holds NaN/±inf, or the scores overflow.
        NoAllowedKeyError: some query row has no allowed key (its softmax would be NaN).
        InputDtypeError: query/key/value are not one floating dtype.
        MaskDtypeError: ``allowed`` is not ``torch.bool``, or ``additive`` is not floating point.
        MaskValueError: ``additive`` holds NaN or ``+inf``.

    All errors subclass ``ValueError`` or ``TypeError``.

    Causal example from the lesson: with all scores 0 every query averages the values it may see.

    >>> import torch
    >>> q = k = torch.zeros(1, 3, 2, dtype=torch.float64)                  # [B=1, L=S=3, D=2]
    >>> v = torch.tensor([[[2.0], [4.0], [8.0]]], dtype=torch.float64)    # [1, 3, 1]
    >>> allowed = torch.ones(3, 3, dtype=torch.bool).tril()               # True = may attend
    >>> out, weights = scaled_dot_product_attention(q, k, v, allowed)
    >>> out[0, :, 0]                                                      # 2, 3, 14/3
    tensor([2.0000, 3.0000, 4.6667], dtype=torch.float64)
    >>> weights[0]
    tensor([[1.0000, 0.0000, 0.0000],
            [0.5000, 0.5000, 0.0000],
            [0.3333, 0.3333, 0.3333]], dtype=torch.float64)
    """
    _check_three_dimensional(query, key, value)
    L, S, d_k = check_inputs(query, key, value)  # noqa: N806 (the lesson's names)
    shape = (query.shape[0], L, S)
    factor = resolve_scale(scale, d_k)
    scores = attention_scores(query, key, scale=factor)  # [B, L, S]
    if scores_may_overflow(query, key, factor) and not bool(torch.isfinite(scores).all()):
        raise NonFiniteError(OVERFLOW_MESSAGE.format(dtype=scores.dtype))
    if additive is not None:
        require_additive("additive", additive)
        require_same_device("additive", additive, query)
        if additive.dtype != scores.dtype:
            raise MaskDtypeError(
                f"additive has dtype {additive.dtype} but the scores are {scores.dtype}; build it "
                "in the query's dtype, e.g. allowed_to_additive(allowed, dtype=query.dtype)"
            )
        scores += broadcast_to("additive", additive, shape, "[B, L, S]")  # [B, L, S]
    if allowed is not None:
        require_bool("allowed", allowed)
        require_same_device("allowed", allowed, query)
        broadcast_to("allowed", allowed, shape, "[B, L, S]")  # validates the shape
        scores.masked_fill_(~allowed, float("-inf"))  # before the softmax
    if additive is not None:
        require_a_key_per_row((scores > float("-inf")).any(dim=-1))  # [B, L]
    elif allowed is not None:
        # Read the mask in its own (broadcast) shape: [L] for a causal mask, not [B, L, S].
        require_a_key_per_row(allowed.any(dim=-1).expand(shape[:-1]))  # [B, L]
    weights = torch.softmax(scores, dim=-1)  # [B, L, S], over the key axis
    output = weights @ value  # [B, L, Dv]
    return output, weights


def require_a_key_per_row(has_key: Tensor) -> None:
    """Raise :class:`NoAllowedKeyError` naming the first query row with no allowed key.

    ``has_key`` is Boolean ``[..., L]``: True where the query row may attend to some key.
    """
    if not bool(has_key.all()):
        index = tuple(int(i) for i in (~has_key).nonzero()[0])
        names = _index_names(len(index))
        where = ", ".join(f"{name} {i}" for name, i in zip(names, index, strict=True))
        raise NoAllowedKeyError(
            f"query row ({where}) has no allowed key: every key is masked, so its softmax would "
            "be 0/0 = NaN; give every query at least one allowed key, or drop the row and mask "
            "its output instead"
        )


def _index_names(ndim: int) -> tuple[str, ...]:
    if ndim == 2:
        return ("batch", "position")
    if ndim == 3:
        return ("batch", "head", "position")
    return (*(f"dim {i}" for i in range(ndim - 1)), "position")
