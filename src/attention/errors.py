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
    "AttentionShapeError",
    "InputDtypeError",
    "MaskArgumentError",
    "MaskDtypeError",
    "MaskValueError",
    "NoAllowedKeyError",
    "NonFiniteError",
]


class AttentionShapeError(ValueError):
    """A tensor has the wrong number of dimensions or a size that disagrees with another argument.

    >>> raise AttentionShapeError("query must be 3-D")
    Traceback (most recent call last):
    attention.errors.AttentionShapeError: query must be 3-D
    """


class NonFiniteError(ValueError):
    """An input, or the scores computed from the inputs, hold NaN or ±inf.

    >>> raise NonFiniteError("value holds NaN")
    Traceback (most recent call last):
    attention.errors.NonFiniteError: value holds NaN
    """


class NoAllowedKeyError(ValueError):
    """A query row has no key it may attend to, so its softmax would be 0/0 (NaN).

    >>> raise NoAllowedKeyError("query row (batch 0, position 2) has no allowed key")
    Traceback (most recent call last):
    attention.errors.NoAllowedKeyError: query row (batch 0, position 2) has no allowed key
    """


class MaskValueError(ValueError):
    """A mask holds a value its convention does not permit (e.g. NaN or +inf in an additive mask).

    >>> raise MaskValueError("additive holds +inf")
    Traceback (most recent call last):
    attention.errors.MaskValueError: additive holds +inf
    """


class MaskArgumentError(ValueError):
    """A mask builder got an impossible argument (negative length, window < 1, ...).

    >>> raise MaskArgumentError("window must be >= 1, got 0")
    Traceback (most recent call last):
    attention.errors.MaskArgumentError: window must be >= 1, got 0
    """


class MaskDtypeError(TypeError):
    """A mask has the wrong dtype for its convention (Boolean masks must be ``torch.bool``).

    >>> raise MaskDtypeError("allowed must be torch.bool, got torch.float32")
    Traceback (most recent call last):
    attention.errors.MaskDtypeError: allowed must be torch.bool, got torch.float32
    """


class InputDtypeError(TypeError):
    """query, key or value is not a floating-point tensor, or their dtypes differ.

    >>> raise InputDtypeError("query must be floating point, got torch.int64")
    Traceback (most recent call last):
    attention.errors.InputDtypeError: query must be floating point, got torch.int64
    """
