"""Live probes for ``keras.layers.MultiHeadAttention`` on its JAX backend.

Keras' layer has two code paths, and a claim may hold on one only:

* ``fused`` -- the default call: it hands the projected heads to ``keras.ops.dot_product_attention``
  (the backend's fused attention; on JAX, ``jax.nn.dot_product_attention``);
* ``return_attention_scores`` -- with ``return_attention_scores=True`` (or dropout) it computes the
  weights itself with a masked softmax, so it can return them.

:func:`keras_weights` counts the calls into ``keras.ops.dot_product_attention`` and raises
:class:`~attention.semantics.observe.ProbePathError` unless the path asked for is the one that ran.
The layer is a pass-through: one head, no biases, zero query and key kernels (every score is 0),
identity value and output kernels, and one-hot tokens, so each output row *is* the weight row.
Keras is fetched when a probe runs, with ``KERAS_BACKEND=jax`` unless the environment already says
otherwise (then the rows are skipped: they are claims about the JAX backend).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from torch import Tensor

from attention.semantics.observe import (
    ProbePathError,
    as_tensor,
    boolean_polarity,
    causal_alignment,
    count_calls,
    empty_row_outcome,
)
from attention.semantics.probes.inputs import EMPTY_ROW_ALLOWED, PATTERN, agreed
from attention.semantics.registry import KERAS_BACKEND, framework_module, probe

__all__ = [
    "KERAS_PATHS",
    "KerasPath",
    "keras_weights",
    "multi_head_attention_attention_mask",
    "multi_head_attention_fully_masked_row",
    "multi_head_attention_fully_masked_row_return_attention_scores",
    "multi_head_attention_use_causal_mask_alignment",
    "multi_head_attention_use_causal_mask_with_dropout",
]

FRAMEWORK = "keras"

KerasPath = Literal["fused", "return_attention_scores"]
"""The two code paths of ``MultiHeadAttention.call`` (see the module docstring)."""

KERAS_PATHS: tuple[KerasPath, ...] = ("fused", "return_attention_scores")


def _passthrough_layer(keras: Any, width: int, dropout: float = 0.0) -> Any:
    """One head of size ``width`` whose output ``[B, T, width]`` is the weight matrix."""
    layer = keras.layers.MultiHeadAttention(
        num_heads=1, key_dim=width, use_bias=False, dropout=dropout
    )
    tokens = np.eye(1, width, dtype=np.float32)[None]  # builds the layer's kernels
    layer(tokens, tokens)
    zeros = np.zeros((width, 1, width), dtype=np.float32)  # query, key kernels [E, N, H]
    identity = np.eye(width, dtype=np.float32)
    # kernels in the order the layer creates them: query, key, value, output
    layer.set_weights([zeros, zeros, identity[:, None, :], identity[None]])
    return layer


def keras_weights(
    path: KerasPath, length: int, source: int, *, dropout: float = 0.0, **kwargs: Any
) -> Tensor:
    """Weights ``[T, S]`` of the pass-through layer along ``path``; raise if another path ran.

    With ``dropout`` > 0 the layer leaves the fused path even without returning the scores
    (``path`` is then ``"return_attention_scores"``'s unfused code, called without them).
    """
    keras = framework_module("keras")
    if keras.backend.backend() != KERAS_BACKEND:
        raise ProbePathError(f"keras runs on {keras.backend.backend()!r}, not {KERAS_BACKEND!r}")
    width = max(length, source)
    layer = _passthrough_layer(keras, width, dropout)
    query = np.eye(length, width, dtype=np.float32)[None]  # [B, T, E] one-hot tokens
    value = np.eye(source, width, dtype=np.float32)[None]  # [B, S, E]
    ops = framework_module("keras.src.ops")  # the module the layer calls through
    with count_calls(ops, "dot_product_attention") as fused:
        if path == "return_attention_scores" and not dropout:
            output, _ = layer(query, value, return_attention_scores=True, **kwargs)
        elif path == "return_attention_scores":
            output = layer(query, value, training=False, **kwargs)  # dropout: unfused
        else:
            output = layer(query, value, **kwargs)
    if fused.calls != int(path == "fused"):
        raise ProbePathError(
            f"MultiHeadAttention did not take the {path} path: keras.ops.dot_product_attention "
            f"ran {fused.calls} time(s)"
        )
    return as_tensor(output)[0, :, :source]  # [T, S]


def _as_batch(mask: Tensor) -> Any:
    return mask.numpy()[None]  # [B=1, T, S], the shape the layer documents


@probe("keras.MultiHeadAttention.attention_mask", framework=FRAMEWORK)
def multi_head_attention_attention_mask() -> str:
    """What True means in the Boolean ``attention_mask`` ``[B, T, S]``, on both code paths."""
    return agreed(
        {
            path: boolean_polarity(
                keras_weights(path, 3, 3, attention_mask=_as_batch(PATTERN)), PATTERN
            )
            for path in KERAS_PATHS
        }
    )


@probe("keras.MultiHeadAttention.use_causal_mask.alignment", framework=FRAMEWORK)
def multi_head_attention_use_causal_mask_alignment() -> str:
    """Where ``use_causal_mask=True`` puts the triangle with T=2 queries and S=4 keys."""
    return agreed(
        {
            path: causal_alignment(keras_weights(path, 2, 4, use_causal_mask=True))
            for path in KERAS_PATHS
        }
    )


def _empty_row(path: KerasPath) -> str:
    weights = keras_weights(path, 3, 3, attention_mask=_as_batch(EMPTY_ROW_ALLOWED))
    return empty_row_outcome(weights[1])


@probe("keras.MultiHeadAttention.fully_masked_row", framework=FRAMEWORK)
def multi_head_attention_fully_masked_row() -> str:
    """Output of a query with no allowed key, default call (the fused path)."""
    return _empty_row("fused")


@probe("keras.MultiHeadAttention.fully_masked_row.return_attention_scores", framework=FRAMEWORK)
def multi_head_attention_fully_masked_row_return_attention_scores() -> str:
    """The same query with ``return_attention_scores=True`` (the layer's own masked softmax)."""
    return _empty_row("return_attention_scores")


@probe("keras.MultiHeadAttention.use_causal_mask.dropout", framework=FRAMEWORK)
def multi_head_attention_use_causal_mask_with_dropout() -> str:
    """``use_causal_mask=True`` on a layer with ``dropout=0.5`` (inference: ``training=False``).

    The dropout takes the layer off the fused path, where keras 3's regression of issue 23038
    applied no causal mask at all; ``"applied"`` when the T=S=3 weights are the causal ones.
    """
    weights = keras_weights("return_attention_scores", 3, 3, dropout=0.5, use_causal_mask=True)
    alignment = causal_alignment(weights)
    if alignment == "upper_left":  # T == S: the one causal triangle
        return "applied"
    if bool((weights > 0).all()):
        return "ignored"
    return alignment
