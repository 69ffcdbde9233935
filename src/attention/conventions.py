"""Converters between the three mask conventions.  Every name says its source and its target.

=============  ======================  ====================================================
convention     values                  used by
=============  ======================  ====================================================
``allowed``    Boolean, True = attend  ``F.scaled_dot_product_attention`` (``attn_mask``),
                                       ``flex_attention`` (``mask_mod``), this package
``forbidden``  Boolean, True = masked  ``nn.MultiheadAttention`` (``attn_mask``,
                                       ``key_padding_mask``), ``nn.Transformer*``
``additive``   float, added to scores  both PyTorch APIs when the mask is floating point:
                                       0 = keep, ``-inf`` = forbid
=============  ======================  ====================================================

Hugging Face models take a fourth spelling of the first convention: ``attention_mask`` is an
*integer* ``[B, S]`` tensor, 1 for a real token (may be attended to) and 0 for padding.  It is
``allowed`` written as integers, per key; :func:`hf_attention_mask_to_allowed` and
:func:`allowed_to_hf_attention_mask` convert it, and refuse anything but 0 and 1.

Every Boolean converter is an exact round trip.  ``additive`` masks convert back to Boolean only
when they hold nothing but 0 and ``-inf``; anything else (a bias, or a finite "large negative" like
``-1e9``) carries more than a Boolean and raises :class:`~attention.errors.MaskValueError`.

What each consumer does with a query row whose keys are **all** masked (checked live by
``python -m attention.semantics`` on the installed torch):

* :func:`attention.scaled_dot_product_attention` raises
  :class:`~attention.errors.NoAllowedKeyError`.
* ``F.scaled_dot_product_attention`` with a Boolean ``attn_mask`` returns a row of zeros (observed
  on torch 2.13, CPU).
* ``nn.MultiheadAttention`` returns NaN for that row when ``need_weights=True`` (it runs its own
  softmax).  With ``need_weights=False`` it calls SDPA, whose zero row then passes through the
  output projection, so the row equals ``out_proj.bias`` -- except on the inference fast path
  (``eval()`` under ``no_grad``), which returns NaN again.
* A plain ``torch.softmax`` over a row that is all ``-inf`` returns NaN.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention._validate import (
    describe,
    require_additive,
    require_bool,
    require_data,
    require_dtype,
    require_int,
    shape_str,
)
from attention.errors import (
    ArgumentTypeError,
    AttentionShapeError,
    MaskArgumentError,
    MaskDtypeError,
    MaskValueError,
)

__all__ = [
    "additive_to_allowed",
    "additive_to_forbidden",
    "allowed_to_additive",
    "allowed_to_forbidden",
    "allowed_to_hf_attention_mask",
    "allowed_to_mha_attn_mask",
    "allowed_to_mha_key_padding_mask",
    "forbidden_to_additive",
    "forbidden_to_allowed",
    "hf_attention_mask_to_allowed",
    "mha_attn_mask_to_allowed",
    "mha_key_padding_mask_to_allowed",
]


def allowed_to_forbidden(allowed: Tensor) -> Tensor:
    """**allowed** (True = may attend) → **forbidden** (True = masked out); same shape.

    >>> allowed_to_forbidden(torch.tensor([True, False]))
    tensor([False,  True])
    """
    require_bool("allowed", allowed)
    return ~allowed


def forbidden_to_allowed(forbidden: Tensor) -> Tensor:
    """**forbidden** (True = masked out) → **allowed** (True = may attend); same shape.

    >>> forbidden_to_allowed(torch.tensor([True, False]))
    tensor([False,  True])
    """
    require_bool("forbidden", forbidden)
    return ~forbidden


def allowed_to_additive(allowed: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """**allowed** (True = may attend) → **additive** float mask: 0 where allowed, -inf elsewhere.

    ``-inf`` exists in every floating dtype, float16 included, so the result is exact in any
    ``dtype``; a finite stand-in such as ``-1e9`` is not (it overflows to ``-inf`` in float16).

    >>> allowed_to_additive(torch.tensor([True, False]), torch.float16)
    tensor([0., -inf], dtype=torch.float16)
    """
    require_bool("allowed", allowed)
    return _allowed_to_additive(allowed, dtype)


def _allowed_to_additive(allowed: Tensor, dtype: object) -> Tensor:
    floating = require_dtype("dtype", dtype)
    if not floating.is_floating_point:
        raise MaskArgumentError(
            f"dtype must be a floating-point dtype (an additive mask holds 0 and -inf), got {dtype}"
        )
    zeros = torch.zeros(allowed.shape, dtype=floating, device=allowed.device)
    return zeros.masked_fill(~allowed, float("-inf"))


def additive_to_allowed(additive: Tensor) -> Tensor:
    """**additive** (0 / -inf) → **allowed** (True = may attend): True where the value is 0.

    Raises :class:`~attention.errors.MaskValueError` if the mask holds anything but 0 and -inf,
    because such a mask (a bias, or a finite large negative) has no exact Boolean equivalent.

    >>> additive_to_allowed(torch.tensor([0.0, float("-inf")]))
    tensor([ True, False])
    """
    return _additive_to_allowed("additive", additive)


def _additive_to_allowed(name: str, additive: Tensor) -> Tensor:
    require_additive(name, additive)
    keep = additive == 0
    if not bool((keep | torch.isneginf(additive)).all()):
        odd = additive[~(keep | torch.isneginf(additive))].flatten()[:3].tolist()
        raise MaskValueError(
            f"{name} holds values other than 0 and -inf (e.g. {odd}); such a mask adds a bias "
            "or a finite penalty and has no exact Boolean equivalent"
        )
    return keep


def forbidden_to_additive(forbidden: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """**forbidden** (True = masked out) → **additive** float mask: -inf where True, 0 elsewhere.

    >>> forbidden_to_additive(torch.tensor([True, False]))
    tensor([-inf, 0.])
    """
    return _allowed_to_additive(forbidden_to_allowed(forbidden), dtype)


def additive_to_forbidden(additive: Tensor) -> Tensor:
    """**additive** (0 / -inf) → **forbidden** (True = masked out): True where the value is -inf.

    >>> additive_to_forbidden(torch.tensor([0.0, float("-inf")]))
    tensor([False,  True])
    """
    return allowed_to_forbidden(additive_to_allowed(additive))


def allowed_to_mha_attn_mask(allowed: Tensor, num_heads: int | None = None) -> Tensor:
    """**allowed** (True = may attend) → ``nn.MultiheadAttention``'s Boolean ``attn_mask``.

    The result is in the **forbidden** convention (True = masked out), in a shape MHA accepts:

    * ``[L, S]`` → ``[L, S]`` (one mask for every batch element and head);
    * ``[B, L, S]`` with ``num_heads=H`` → ``[B·H, L, S]``, each batch element's mask repeated for
      its ``H`` heads (MHA indexes the first axis as ``b·H + h``);
    * ``[B, H, L, S]`` → ``[B·H, L, S]``.

    >>> allowed = torch.tensor([[True, False], [True, True]])      # [L=2, S=2], causal
    >>> allowed_to_mha_attn_mask(allowed)
    tensor([[False,  True],
            [False, False]])
    >>> allowed_to_mha_attn_mask(allowed[None].expand(3, 2, 2), num_heads=4).shape
    torch.Size([12, 2, 2])
    """
    require_bool("allowed", allowed)
    if num_heads is not None:
        require_int("num_heads", num_heads, minimum=1, error=MaskArgumentError)
    forbidden = ~allowed
    if allowed.ndim == 2:
        return forbidden  # [L, S]
    if allowed.ndim == 3:
        if num_heads is None:
            raise MaskArgumentError(
                f"allowed has shape {shape_str(allowed)} = [B, L, S]; pass num_heads >= 1 so each "
                "batch element's mask can be repeated for its heads"
            )
        return forbidden.repeat_interleave(num_heads, dim=0)  # [B*H, L, S]
    if allowed.ndim == 4:
        batch, heads, length, source = allowed.shape
        if num_heads is not None and num_heads != heads:
            raise MaskArgumentError(
                f"allowed has {heads} heads (shape {shape_str(allowed)}) but num_heads={num_heads}"
            )
        return forbidden.reshape(batch * heads, length, source)  # [B*H, L, S]
    raise AttentionShapeError(
        f"allowed must be [L, S], [B, L, S] or [B, H, L, S], got shape {shape_str(allowed)}"
    )


def mha_attn_mask_to_allowed(attn_mask: Tensor, num_heads: int | None = None) -> Tensor:
    """``nn.MultiheadAttention``'s ``attn_mask`` → **allowed** (True = may attend).

    A Boolean ``attn_mask`` is read as **forbidden** (True = masked out); a floating one as
    **additive** (0 / -inf only).  ``[L, S]`` stays ``[L, S]``; ``[B·H, L, S]`` with
    ``num_heads=H`` becomes ``[B, H, L, S]``.

    >>> mha_attn_mask_to_allowed(torch.tensor([[False, True], [False, False]]))
    tensor([[ True, False],
            [ True,  True]])
    """
    allowed = _mha_mask_to_allowed("attn_mask", attn_mask)
    if num_heads is not None:
        require_int("num_heads", num_heads, minimum=1, error=MaskArgumentError)
    if allowed.ndim == 2:
        return allowed  # [L, S]
    if allowed.ndim == 3:
        if num_heads is None:
            return allowed  # [B*H, L, S]
        if allowed.shape[0] % num_heads:
            raise MaskArgumentError(
                f"attn_mask has {allowed.shape[0]} entries on its first axis, not a multiple of "
                f"num_heads={num_heads}"
            )
        batch = allowed.shape[0] // num_heads  # not -1: an empty mask has no size to infer
        return allowed.reshape(batch, num_heads, *allowed.shape[1:])  # [B, H, L, S]
    raise AttentionShapeError(
        f"attn_mask must be [L, S] or [B*H, L, S], got shape {shape_str(attn_mask)}"
    )


def _mha_mask_to_allowed(name: str, mask: Tensor) -> Tensor:
    """An MHA mask read as torch reads it: Boolean = forbidden, floating = additive."""
    if isinstance(mask, Tensor) and mask.is_floating_point():
        return _additive_to_allowed(name, mask)
    require_bool(name, mask)
    return ~mask


def allowed_to_mha_key_padding_mask(allowed: Tensor) -> Tensor:
    """Key-padding **allowed** (True = may attend) ``[B, S]`` or ``[B, 1, S]`` → MHA ``[B, S]``.

    ``nn.MultiheadAttention``'s ``key_padding_mask`` uses the **forbidden** convention: True
    marks a padded key to ignore.

    >>> allowed = torch.tensor([[[True, True, False]]])         # [B=1, L=1, S=3]
    >>> allowed_to_mha_key_padding_mask(allowed)
    tensor([[False, False,  True]])
    """
    require_bool("allowed", allowed)
    if allowed.ndim == 3 and allowed.shape[1] == 1:
        allowed = allowed[:, 0, :]  # [B, S]
    if allowed.ndim != 2:
        raise AttentionShapeError(
            "allowed must be a key-padding mask (True = may attend) [B, S] or [B, 1, S], got "
            f"shape {shape_str(allowed)}"
        )
    return ~allowed  # [B, S]


def mha_key_padding_mask_to_allowed(key_padding_mask: Tensor) -> Tensor:
    """MHA ``key_padding_mask`` (True = padded key: **forbidden**) → **allowed** ``[B, 1, S]``.

    ``key_padding_mask`` is ``[B, S]``; the result broadcasts over queries in
    :func:`attention.scaled_dot_product_attention`.  A floating ``key_padding_mask`` is read as
    **additive** (0 / -inf only).

    >>> mha_key_padding_mask_to_allowed(torch.tensor([[False, True]]))
    tensor([[[ True, False]]])
    """
    allowed = _mha_mask_to_allowed("key_padding_mask", key_padding_mask)
    if allowed.ndim != 2:
        raise AttentionShapeError(
            f"key_padding_mask must be [B, S], got shape {shape_str(key_padding_mask)}"
        )
    return allowed[:, None, :]  # [B, 1, S]


def hf_attention_mask_to_allowed(attention_mask: Tensor) -> Tensor:
    """HF ``attention_mask`` ``[B, S]`` (1 = attend, 0 = padding) → **allowed** ``[B, 1, S]``.

    Hugging Face models mark real tokens with 1 and padded ones with 0: the **allowed**
    convention (True = may attend) written as integers, one entry per key.  The result broadcasts
    over the queries in :func:`attention.scaled_dot_product_attention` and in
    ``F.scaled_dot_product_attention``.  Integer and Boolean masks are accepted; a value other than
    0 and 1 raises :class:`~attention.errors.MaskValueError` (it is not a padding mask), and a
    floating-point mask raises :class:`~attention.errors.MaskDtypeError`: a float here is usually
    an already expanded additive mask (0 / a large negative), which reads the other way round.

    >>> hf = torch.tensor([[1, 1, 0]])           # [B=1, S=3], last key padded
    >>> hf_attention_mask_to_allowed(hf)
    tensor([[[ True,  True, False]]])
    """
    if not isinstance(attention_mask, Tensor):
        raise ArgumentTypeError(
            f"attention_mask must be an integer torch tensor [B, S] of 0 / 1, got "
            f"{describe(attention_mask)}"
        )
    require_data("attention_mask", attention_mask)
    if attention_mask.is_floating_point() or attention_mask.is_complex():
        raise MaskDtypeError(
            "attention_mask must hold integers 0 / 1 (1 = attend), got dtype "
            f"{attention_mask.dtype}; a floating mask is usually an expanded additive mask: "
            "convert it with additive_to_allowed instead"
        )
    if attention_mask.ndim != 2:
        raise AttentionShapeError(
            "attention_mask must be [B, S] (one entry per key), got shape "
            f"{shape_str(attention_mask)}"
        )
    if attention_mask.dtype != torch.bool:
        valid = (attention_mask == 0) | (attention_mask == 1)
        if not bool(valid.all()):
            odd = attention_mask[~valid].flatten()[:3].tolist()
            raise MaskValueError(
                f"attention_mask may hold only 0 (padding) and 1 (attend), got e.g. {odd}"
            )
    return (attention_mask != 0)[:, None, :]  # [B, 1, S]


def allowed_to_hf_attention_mask(allowed: Tensor, dtype: torch.dtype = torch.long) -> Tensor:
    """Key-padding **allowed** (True = may attend) → HF ``attention_mask`` ``[B, S]`` of 0 / 1.

    ``allowed`` is ``[B, S]`` or ``[B, 1, S]``.  The result is ``[B, S]`` in ``dtype``
    (``torch.long`` by default, as tokenizers return it): 1 where the key may be attended to, 0
    where it is padding.  ``dtype`` must be an integer dtype or ``torch.bool``; a query-dependent
    mask ``[B, L, S]`` with ``L > 1`` has no ``attention_mask`` equivalent and raises
    :class:`~attention.errors.AttentionShapeError`.

    >>> allowed_to_hf_attention_mask(torch.tensor([[[True, True, False]]]))   # [1, 1, 3]
    tensor([[1, 1, 0]])
    """
    require_bool("allowed", allowed)
    if require_dtype("dtype", dtype).is_floating_point or dtype.is_complex:
        raise MaskArgumentError(
            "dtype must be an integer dtype or torch.bool (attention_mask holds 0 / 1), "
            f"got {dtype}"
        )
    if allowed.ndim == 3 and allowed.shape[1] == 1:
        allowed = allowed[:, 0, :]  # [B, S]
    if allowed.ndim != 2:
        raise AttentionShapeError(
            "an attention_mask is one entry per key: allowed must be [B, S] or [B, 1, S], "
            f"got shape {shape_str(allowed)}"
        )
    return allowed.to(dtype)  # [B, S]: 1 = attend, 0 = padding
