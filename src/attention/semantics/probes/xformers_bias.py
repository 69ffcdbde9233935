"""Probes for xFormers' attention biases: the CUDA kernel, and the masks materialised on the CPU.

Two kinds of rows.  ``xformers.ops.memory_efficient_attention`` runs on CUDA only, so its rows
are reported as not verified on a CPU machine and the table cites their source (the bias classes'
docstrings in ``xformers/ops/fmha/attn_bias.py``); with a CUDA device the probes call the real
kernel on the shared zero queries and keys and one-hot values
(:mod:`attention.semantics.probes.inputs`, layout ``[B, M, H, K]``), so the output is the weight
matrix.  :data:`DEVICE` and :data:`DTYPE` are module settings so the tests can use a stand-in on
the CPU.

The other rows need no kernel: every bias class can write itself out as the additive ``[M, S]``
tensor of 0 and -inf it stands for (``materialize``), in pure torch, on the CPU.  xFormers' wheels
are built against one torch release each, so beside the pinned CPU torch their compiled
extensions do not load (xFormers logs a warning at import); the bias classes are Python and
work.  :func:`materialized_weights` turns such a tensor into the weights that zero scores plus
that bias give, so these rows state what the mask says, not what a CUDA kernel computes.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from attention.semantics.observe import causal_alignment, describe
from attention.semantics.probes.inputs import agreed, read_weights, weight_inputs
from attention.semantics.probes.windows import window_reading
from attention.semantics.registry import framework_module, probe

__all__ = [
    "DEVICE",
    "DTYPE",
    "block_diagonal_causal_mask_alignment",
    "block_diagonal_mask_packed",
    "local_attention_from_bottom_right_mask_window_left",
    "lower_triangular_from_bottom_right_local_attention_mask_window_size",
    "lower_triangular_from_bottom_right_mask_alignment",
    "lower_triangular_from_bottom_right_mask_materialize_alignment",
    "lower_triangular_mask_alignment",
    "lower_triangular_mask_materialize_alignment",
    "materialized_weights",
    "xformers_weights",
]

FRAMEWORK = "xformers"
DEVICE = "cuda"
DTYPE = torch.float16


def xformers_weights(length: int, source: int, bias_class: str) -> Tensor:
    """Weights ``[M, S]`` of ``memory_efficient_attention`` with ``attn_bias=<bias_class>()``."""
    ops = framework_module("xformers.ops")
    attn_bias = framework_module("xformers.ops.fmha.attn_bias")
    query, key, value = weight_inputs(
        length, source, layout="BLHD", width=16, dtype=DTYPE, device=DEVICE
    )  # [B, M, H, K]
    bias = getattr(attn_bias, bias_class)()
    output = ops.memory_efficient_attention(query, key, value, attn_bias=bias)  # [B, M, H, K]
    return read_weights(output, "BLHD", source)  # [M, S], float64 on the CPU


@probe("xformers.LowerTriangularMask.alignment", framework=FRAMEWORK)
def lower_triangular_mask_alignment() -> str:
    """Where ``LowerTriangularMask`` puts the triangle with fewer queries than keys (2 x 4)."""
    return causal_alignment(xformers_weights(2, 4, "LowerTriangularMask"))


@probe("xformers.LowerTriangularFromBottomRightMask.alignment", framework=FRAMEWORK)
def lower_triangular_from_bottom_right_mask_alignment() -> str:
    """Where ``LowerTriangularFromBottomRightMask`` puts it, same shapes."""
    return causal_alignment(xformers_weights(2, 4, "LowerTriangularFromBottomRightMask"))


def materialized_weights(bias: Any, length: int, source: int) -> Tensor:
    """Weights ``[M, S]`` that zero scores plus ``bias.materialize((M, S))`` give, on the CPU.

    The softmax of the additive tensor along the keys: what the attention would compute with
    every score 0, the mask alone deciding (a row of -inf only comes out NaN).
    """
    additive = bias.materialize((length, source), dtype=torch.float64, device="cpu")  # [M, S]
    return torch.softmax(additive, dim=-1)


def _attn_bias() -> Any:
    return framework_module("xformers.ops.fmha.attn_bias")


@probe("xformers.LowerTriangularMask.materialize.alignment", framework=FRAMEWORK)
def lower_triangular_mask_materialize_alignment() -> str:
    """Where the materialised ``LowerTriangularMask`` puts the triangle for 2 queries, 4 keys."""
    return causal_alignment(materialized_weights(_attn_bias().LowerTriangularMask(), 2, 4))


@probe("xformers.LowerTriangularFromBottomRightMask.materialize.alignment", framework=FRAMEWORK)
def lower_triangular_from_bottom_right_mask_materialize_alignment() -> str:
    """The same for ``LowerTriangularFromBottomRightMask``."""
    bias = _attn_bias().LowerTriangularFromBottomRightMask()
    return causal_alignment(materialized_weights(bias, 2, 4))


_PACKED = (2, 3)
"""Two sequences of 2 and 3 tokens packed into one row of 5."""


def _blocks(lengths: tuple[int, ...]) -> Tensor:
    """``[L, L]`` allowed: each token sees the tokens of its own sequence only."""
    sequence = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))
    return sequence[:, None] == sequence[None, :]


@probe("xformers.BlockDiagonalMask.packed", framework=FRAMEWORK)
def block_diagonal_mask_packed() -> str:
    """Whether ``BlockDiagonalCausalMask.from_seqlens([2, 3])`` keeps the packed sequences apart.

    ``"applied"`` when each token sees the tokens of its own sequence up to itself, with the
    causal triangle starting again at token 2; ``"ignored"`` when the row is one causal sequence.
    The plain ``BlockDiagonalMask`` must give the blocks without the triangles.
    """
    attn_bias = _attn_bias()
    total = sum(_PACKED)
    causal = torch.ones(total, total, dtype=torch.bool).tril()
    seen = {}
    for name, expected in (
        ("BlockDiagonalMask", _blocks(_PACKED)),
        ("BlockDiagonalCausalMask", _blocks(_PACKED) & causal),
    ):
        bias = getattr(attn_bias, name).from_seqlens(list(_PACKED))
        receives = materialized_weights(bias, total, total) > 0
        if torch.equal(receives, expected):
            seen[name] = "applied"
        elif torch.equal(receives, causal) or bool(receives.all()):
            seen[name] = "ignored"
        else:
            seen[name] = f"unrecognised: receives {describe(receives.double())}"
    return agreed(seen)


@probe("xformers.BlockDiagonalCausalMask.alignment", framework=FRAMEWORK)
def block_diagonal_causal_mask_alignment() -> str:
    """Where ``BlockDiagonalCausalMask`` puts each block's triangle: 1 and 2 queries, 3 keys each.

    Read on the second block (2 queries, keys 3..5), the one where the two alignments differ
    for both queries; the first block must agree.
    """
    bias = _attn_bias().BlockDiagonalCausalMask.from_seqlens([1, 2], [3, 3])
    weights = materialized_weights(bias, 3, 6)  # [M=3, S=6]
    first, second = weights[:1, :3], weights[1:, 3:]
    if bool(weights[:1, 3:].any()) or bool(weights[1:, :3].any()):
        return f"unrecognised: a query sees another sequence's keys: {describe(weights)}"
    alignment = causal_alignment(second)
    one_query = "upper_left" if bool(first[0, 1:].eq(0).all()) else "lower_right"
    if alignment != one_query:
        return f"unrecognised: the blocks differ ({one_query}, {alignment})"
    return alignment


@probe("xformers.LowerTriangularFromBottomRightLocalAttentionMask.window_size", framework=FRAMEWORK)
def lower_triangular_from_bottom_right_local_attention_mask_window_size() -> str:
    """How many keys a window of 3 covers for 6 queries, in both causal local-attention biases.

    ``LowerTriangularFromBottomRightLocalAttentionMask(3)`` and
    ``BlockDiagonalCausalMask.from_seqlens([6]).make_local_attention(3)`` (vLLM issue 3385's).
    """
    attn_bias = _attn_bias()
    biases = {
        "LowerTriangularFromBottomRightLocalAttentionMask": (
            attn_bias.LowerTriangularFromBottomRightLocalAttentionMask(3)
        ),
        "make_local_attention": (
            attn_bias.BlockDiagonalCausalMask.from_seqlens([6]).make_local_attention(3)
        ),
    }
    return agreed(
        {name: window_reading(materialized_weights(bias, 6, 6), 3) for name, bias in biases.items()}
    )


@probe("xformers.LocalAttentionFromBottomRightMask.window_left", framework=FRAMEWORK)
def local_attention_from_bottom_right_mask_window_left() -> str:
    """How many keys ``window_left=2, window_right=0`` lets each of 6 queries see."""
    bias = _attn_bias().LocalAttentionFromBottomRightMask(window_left=2, window_right=0)
    return window_reading(materialized_weights(bias, 6, 6), 2)
