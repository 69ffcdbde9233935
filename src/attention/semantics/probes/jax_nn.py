"""Live probes for ``jax.nn.dot_product_attention``: one function per claim, on a tiny input.

The input is the shared one (:mod:`attention.semantics.probes.inputs`) in JAX's layout
``[B, T, N, H]`` (batch, queries, heads, head size): zero queries and keys, so every score is 0,
and one-hot values, so each output row *is* that query's weight row.  The inputs go in as NumPy
arrays, which JAX accepts as they are; the output converts back to torch for
:mod:`attention.semantics.observe`.  ``jax`` is fetched when a
probe runs (:func:`~attention.semantics.registry.framework_module`), never at import, and the
function is looked up on the module at call time, so a test can put a JAX that behaves
differently in its place and watch the rows fail.  The rows hold for the default implementation,
which on a CPU is the XLA one.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from attention.semantics.observe import (
    additive_reading,
    boolean_polarity,
    call_outcome,
    causal_alignment,
    describe,
    empty_row_outcome,
)
from attention.semantics.probes.inputs import (
    ADDITIVE_ROW,
    EMPTY_ROW_ALLOWED,
    PATTERN,
    read_weights,
    weight_inputs,
)
from attention.semantics.probes.windows import window_reading
from attention.semantics.registry import framework_module, probe

__all__ = [
    "jax_weights",
    "nn_dot_product_attention_bias",
    "nn_dot_product_attention_fully_masked_row",
    "nn_dot_product_attention_fully_masked_row_bias",
    "nn_dot_product_attention_is_causal_alignment",
    "nn_dot_product_attention_key_value_seq_lengths",
    "nn_dot_product_attention_key_value_seq_lengths_zero",
    "nn_dot_product_attention_local_window_size",
    "nn_dot_product_attention_local_window_size_without_mask",
    "nn_dot_product_attention_mask_bool",
    "nn_dot_product_attention_mask_float",
    "nn_dot_product_attention_query_seq_lengths",
    "nn_dot_product_attention_seq_lengths_with_mask_and_is_causal",
]

FRAMEWORK = "jax"


def jax_weights(length: int, source: int, **kwargs: Any) -> Tensor:
    """Weights ``[T, S]`` of ``jax.nn.dot_product_attention`` called with ``kwargs``.

    Masks and biases go in as 4-D ``[B, N, T, S]`` arrays, the rank the function asks for.
    """
    jax = framework_module("jax")
    inputs = weight_inputs(length, source, layout="BLHD", dtype=torch.float32)  # [B, T, N, H]
    query, key, value = (tensor.numpy() for tensor in inputs)
    output = jax.nn.dot_product_attention(query, key, value, **kwargs)  # [B, T, N, H]
    return read_weights(output, "BLHD", source)  # [T, S]


def _four_d(mask: Tensor) -> Any:
    """A torch ``[T, S]`` mask as the NumPy ``[B=1, N=1, T, S]`` array JAX takes."""
    return mask.numpy()[None, None]


@probe("jax.nn.dot_product_attention.mask.bool", framework=FRAMEWORK)
def nn_dot_product_attention_mask_bool() -> str:
    """What True means in ``mask``: which keys receive weight."""
    return boolean_polarity(jax_weights(3, 3, mask=_four_d(PATTERN)), PATTERN)


@probe("jax.nn.dot_product_attention.mask.float", framework=FRAMEWORK)
def nn_dot_product_attention_mask_float() -> str:
    """Whether a floating-point ``mask`` [0, ln 3, -inf] is rejected, or how it is read."""
    mask = ADDITIVE_ROW.to(torch.float32).expand(3, 3)  # [T, S]
    weights: list[Tensor] = []
    outcome, error = call_outcome(lambda: weights.append(jax_weights(3, 3, mask=_four_d(mask))))
    if outcome == "error":
        if "mask" in str(error):
            return "error"
        return f"unrecognised: {type(error).__name__}: {error}"
    return f"unrecognised: accepted, read as {additive_reading(weights[0], mask)}"


@probe("jax.nn.dot_product_attention.bias", framework=FRAMEWORK)
def nn_dot_product_attention_bias() -> str:
    """How ``bias`` [0, ln 3, -inf] is applied: added to the scores, or read as a mask."""
    bias = ADDITIVE_ROW.to(torch.float32).expand(3, 3)  # [T, S]
    return additive_reading(jax_weights(3, 3, bias=_four_d(bias)), bias)


@probe("jax.nn.dot_product_attention.is_causal.alignment", framework=FRAMEWORK)
def nn_dot_product_attention_is_causal_alignment() -> str:
    """Where ``is_causal=True`` puts the triangle with fewer queries than keys (T=2, S=4)."""
    return causal_alignment(jax_weights(2, 4, is_causal=True))


@probe("jax.nn.dot_product_attention.fully_masked_row", framework=FRAMEWORK)
def nn_dot_product_attention_fully_masked_row() -> str:
    """Output of a query whose Boolean ``mask`` row is all False."""
    return empty_row_outcome(jax_weights(3, 3, mask=_four_d(EMPTY_ROW_ALLOWED))[1])


@probe("jax.nn.dot_product_attention.fully_masked_row.bias", framework=FRAMEWORK)
def nn_dot_product_attention_fully_masked_row_bias() -> str:
    """Output of a query whose ``bias`` row is all -inf."""
    bias = torch.zeros(3, 3).masked_fill(~EMPTY_ROW_ALLOWED, float("-inf"))  # [T, S]
    return empty_row_outcome(jax_weights(3, 3, bias=_four_d(bias))[1])


def _lengths(length: int) -> Any:
    """A ``[B=1]`` int32 array of sequence lengths, the form the function checks for."""
    return torch.tensor([length], dtype=torch.int32).numpy()


def _keys_below(length: int, source: int, valid: int) -> Tensor:
    """``[T, S]`` allowed: every query sees keys ``0 .. valid - 1``."""
    return (torch.arange(source) < valid).expand(length, source)


def _reading_of_lengths(weights: Tensor, allowed: Tensor) -> str:
    """``"applied"`` when exactly the ``allowed`` keys receive weight, ``"ignored"`` when all do."""
    receives = weights.detach().cpu() > 0
    if torch.equal(receives, allowed):
        return "applied"
    if bool(receives.all()):
        return "ignored"
    return f"unrecognised: weights {describe(weights)}"


@probe("jax.nn.dot_product_attention.key_value_seq_lengths", framework=FRAMEWORK)
def nn_dot_product_attention_key_value_seq_lengths() -> str:
    """Which keys ``key_value_seq_lengths=[2]`` leaves to T=3 queries among S=4 keys."""
    weights = jax_weights(3, 4, key_value_seq_lengths=_lengths(2))
    return _reading_of_lengths(weights, _keys_below(3, 4, 2))


@probe("jax.nn.dot_product_attention.key_value_seq_lengths.zero", framework=FRAMEWORK)
def nn_dot_product_attention_key_value_seq_lengths_zero() -> str:
    """Output of the queries of a sequence whose key length is 0 (every key masked)."""
    weights = jax_weights(2, 3, key_value_seq_lengths=_lengths(0))
    seen = {empty_row_outcome(row) for row in weights}
    return seen.pop() if len(seen) == 1 else f"differs between queries: {sorted(seen)}"


@probe("jax.nn.dot_product_attention.query_seq_lengths", framework=FRAMEWORK)
def nn_dot_product_attention_query_seq_lengths() -> str:
    """Output of query 2 when ``query_seq_lengths=[2]`` (T=S=3): a padded query."""
    weights = jax_weights(3, 3, query_seq_lengths=_lengths(2))
    real = _reading_of_lengths(weights[:2], torch.ones(2, 3, dtype=torch.bool))
    if real != "applied":  # the queries below the length keep every key
        return f"unrecognised: queries 0 and 1 {describe(weights[:2])}"
    return empty_row_outcome(weights[2])


@probe("jax.nn.dot_product_attention.seq_lengths.mask.is_causal", framework=FRAMEWORK)
def nn_dot_product_attention_seq_lengths_with_mask_and_is_causal() -> str:
    """``key_value_seq_lengths=[3]``, a Boolean ``mask`` and ``is_causal=True`` together (4 x 4).

    ``"applied"`` when a key receives weight only where all three allow it; each of the three
    changes the weights on its own (the mask query 1's, the triangle query 0's, the length
    query 3's).
    """
    mask = torch.tensor([True, False, True, True]).expand(4, 4)  # [T, S] allowed
    weights = jax_weights(
        4, 4, mask=_four_d(mask), is_causal=True, key_value_seq_lengths=_lengths(3)
    )
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    return _reading_of_lengths(weights, mask & causal & _keys_below(4, 4, 3))


@probe("jax.nn.dot_product_attention.local_window_size", framework=FRAMEWORK)
def nn_dot_product_attention_local_window_size() -> str:
    """How many keys ``local_window_size=(2, 0)`` with ``is_causal=True`` lets each of 6 see."""
    return window_reading(jax_weights(6, 6, is_causal=True, local_window_size=(2, 0)), 2)


@probe("jax.nn.dot_product_attention.local_window_size.without_mask", framework=FRAMEWORK)
def nn_dot_product_attention_local_window_size_without_mask() -> str:
    """Whether ``local_window_size=(2, 0)`` given alone (no mask, no causal flag) applies."""
    weights = jax_weights(6, 6, local_window_size=(2, 0))  # [T=6, S=6]
    if bool((weights > 0).all()):
        return "ignored"  # every query sees every key: the window was dropped
    reading = window_reading(weights, 2)
    return "applied" if reading in ("w_keys", "w_plus_1_keys") else reading
