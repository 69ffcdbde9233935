"""Probes for xFormers' causal attention biases: they need a CUDA device and xFormers.

``xformers.ops.memory_efficient_attention`` runs on CUDA, and xFormers' wheels are built against
one torch release each, so neither is available beside the pinned CPU torch.  Without them these
rows are reported as not verified, and the table cites their source (the bias classes' docstrings
in ``xformers/ops/fmha/attn_bias.py``).  With them the probes call the real kernel on the shared
zero queries and keys and one-hot values (:mod:`attention.semantics.probes.inputs`, layout
``[B, M, H, K]``), so the output is the weight matrix.
:data:`DEVICE` and :data:`DTYPE` are module settings so the tests can use a stand-in on the CPU.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attention.semantics.observe import causal_alignment
from attention.semantics.probes.inputs import read_weights, weight_inputs
from attention.semantics.registry import framework_module, probe

__all__ = [
    "DEVICE",
    "DTYPE",
    "lower_triangular_from_bottom_right_mask_alignment",
    "lower_triangular_mask_alignment",
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
