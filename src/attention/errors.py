"""Exception types raised by the package.

Each one subclasses the built-in type that a caller would expect (``ValueError`` for bad values and
shapes, ``TypeError`` for bad dtypes), so ``except ValueError`` keeps working, while tests and
readers can tell the failures apart by name.

>>> from attention.errors import NoAllowedKeyError
>>> issubclass(NoAllowedKeyError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "ArgumentValueError",
    "AttentionShapeError",
    "DeviceError",
    "InputDtypeError",
    "MaskArgumentError",
    "MaskDtypeError",
    "MaskValueError",
    "NoAllowedKeyError",
    "NonFiniteError",
]


class AttentionShapeError(ValueError):
    """A tensor has the wrong number of dimensions or a size that disagrees with another argument.

    Devices are not shapes: a tensor on another device raises :class:`DeviceError`.

    >>> import torch
    >>> from attention import scaled_dot_product_attention
    >>> q, k, v = torch.ones(2, 3), torch.ones(1, 2, 3), torch.ones(1, 2, 1)
    >>> scaled_dot_product_attention(q, k, v)
    Traceback (most recent call last):
    attention.errors.AttentionShapeError: query must be 3-D [B, L, D], got 2-D shape [2, 3]
    """


class NonFiniteError(ValueError):
    """An input holds NaN or ±inf, or a value computed from finite inputs would.

    ``scale`` infinite in the dtype the scores are computed in, scores that overflow the inputs'
    dtype, a finite ``additive`` that pushes a score out of that range, or a projection of
    :class:`~attention.MultiHeadAttention` that overflows: the call raises instead of returning
    NaN.

    >>> import torch
    >>> from attention import attention_scores
    >>> attention_scores(torch.ones(1, 2), torch.full((1, 2), float("nan")))
    Traceback (most recent call last):
    attention.errors.NonFiniteError: key holds NaN or ±inf; attention needs finite inputs
    """


class NoAllowedKeyError(ValueError):
    """A query row has no key it may attend to, so its softmax would be 0/0 (NaN).

    >>> import torch
    >>> from attention import scaled_dot_product_attention
    >>> q = k = v = torch.ones(1, 2, 1)
    >>> allowed = torch.tensor([[True, False], [False, False]])       # True = may attend
    >>> scaled_dot_product_attention(q, k, v, allowed)
    Traceback (most recent call last):
    attention.errors.NoAllowedKeyError: query row (batch 0, position 1) has no allowed key: ...
    """


class MaskValueError(ValueError):
    """A mask holds a value its convention does not permit (e.g. NaN or +inf in an additive mask).

    >>> import torch
    >>> from attention import additive_to_allowed
    >>> additive_to_allowed(torch.tensor([0.0, float("inf")]))
    Traceback (most recent call last):
    attention.errors.MaskValueError: additive holds +inf; an additive mask may hold finite ...
    """


class MaskArgumentError(ValueError):
    """A mask builder or converter got an impossible value for an argument that shapes the mask.

    A negative length, a window below 1, an unknown causal alignment, a prefix longer than the
    sequence, a head count that does not fit the mask's layout, a non-floating dtype for an
    additive mask.  A value of the wrong Python type is an :class:`ArgumentTypeError` instead.

    >>> from attention import sliding_window_allowed
    >>> sliding_window_allowed(4, 0)
    Traceback (most recent call last):
    attention.errors.MaskArgumentError: window must be >= 1, got 0
    """


class ArgumentValueError(ValueError):
    """An argument that is not a mask (a size, a head count, a module) has an impossible value.

    ``embed_dim`` not a multiple of ``num_heads``, a non-positive size in the cost model, an
    ``nn.MultiheadAttention`` that :meth:`~attention.MultiHeadAttention.from_torch` cannot copy.

    >>> from attention import mha_parameter_count
    >>> mha_parameter_count(10, 3)
    Traceback (most recent call last):
    attention.errors.ArgumentValueError: embed_dim=10 must be a positive multiple of num_heads=3 ...
    """


class ArgumentTypeError(TypeError):
    """An argument has the wrong Python type: not a tensor, not a number, not an int, not a bool.

    A list where a tensor is expected, a string or ``True`` as ``scale``, ``2.0`` as a head count
    (``bool`` is never accepted as an ``int`` or a ``float`` here), a string as a dtype.  The
    message names the argument and the type that was expected.

    >>> import torch
    >>> from attention import attention_scores
    >>> attention_scores(torch.ones(1, 2), torch.ones(1, 2), scale="2")
    Traceback (most recent call last):
    attention.errors.ArgumentTypeError: scale must be a real number (int or float) or None, ...
    """


class DeviceError(ValueError):
    """A tensor argument is on a device the call cannot use.

    Either it is on another device than the other tensors (``query``'s, or the module's weights'),
    or it is on PyTorch's ``meta`` device, which holds shapes but no values: the package reads
    values to check them (finite inputs, an allowed key in every row), so it needs real tensors.

    >>> import torch
    >>> from attention import attention_scores
    >>> attention_scores(torch.ones(1, 2), torch.ones(1, 2, device="meta"))
    Traceback (most recent call last):
    attention.errors.DeviceError: key is on meta but query is on cpu; move it first, e.g. ...
    >>> attention_scores(torch.ones(1, 2, device="meta"), torch.ones(1, 2, device="meta"))
    Traceback (most recent call last):
    attention.errors.DeviceError: query is on the meta device, which holds a shape but no ...
    """


class MaskDtypeError(TypeError):
    """A mask tensor has the wrong dtype for its convention (Boolean masks must be ``torch.bool``).

    The message states the argument's own convention.  A mask that is not a tensor at all raises
    :class:`ArgumentTypeError`.

    >>> import torch
    >>> from attention import forbidden_to_allowed
    >>> forbidden_to_allowed(torch.tensor([1.0, 0.0]))
    Traceback (most recent call last):
    attention.errors.MaskDtypeError: forbidden must be a torch.bool tensor (True = masked out), ...
    """


class InputDtypeError(TypeError):
    """query, key or value is not floating point, or their dtypes differ.

    They must share one dtype with each other and, in :class:`~attention.MultiHeadAttention`,
    with the module's weights.

    >>> import torch
    >>> from attention import attention_scores
    >>> attention_scores(torch.ones(1, 2, dtype=torch.int64), torch.ones(1, 2))
    Traceback (most recent call last):
    attention.errors.InputDtypeError: query must be a floating-point tensor, got torch.int64
    """
