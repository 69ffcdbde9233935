"""Live probes for the ONNX ``Attention`` operator (opset 23), in two runtimes on the CPU.

A one-node graph ``Attention(Q, K, V[, attn_mask])`` with ``scale=1`` is built with
``onnx.helper`` and run by ``onnx``'s reference evaluator (framework ``onnx``: the operator's
definition in Python) and by ``onnxruntime``'s CPU execution provider (framework
``onnxruntime``).  The inputs are the shared zero queries and keys and one-hot values in the
operator's 4-D layout ``[B, H, L, D]`` (:mod:`attention.semantics.probes.inputs`), so the output
is the weight matrix.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor

from attention.semantics.observe import (
    as_tensor,
    boolean_polarity,
    causal_alignment,
    empty_row_outcome,
)
from attention.semantics.registry import framework_module, probe

__all__ = [
    "OPSET",
    "onnx_weights",
    "reference_bool_mask",
    "reference_causal_alignment",
    "reference_fully_masked_row",
    "runtime_additive_fully_masked_row",
    "runtime_bool_mask",
    "runtime_causal_alignment",
    "runtime_fully_masked_row",
    "runtime_single_query_causal_alignment",
]

OPSET = 23
Runtime = Literal["onnx", "onnxruntime"]
PATTERN = np.array([[True, False, True, True], [False, True, True, False]])  # [L=2, S=4]


def _model(*, causal: bool, mask: np.ndarray | None) -> Any:
    onnx = framework_module("onnx")
    helper = onnx.helper
    names = ["Q", "K", "V"] + (["M"] if mask is not None else [])
    floats = onnx.TensorProto.FLOAT
    types = [floats] * 3 + (
        [onnx.helper.np_dtype_to_tensor_dtype(mask.dtype)] if mask is not None else []
    )
    inputs = [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, types, strict=True)]
    node = helper.make_node("Attention", names, ["Y"], is_causal=int(causal), scale=1.0)
    output = helper.make_tensor_value_info("Y", floats, None)
    graph = helper.make_graph([node], "attention", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10  # what onnxruntime 1.2x reads
    return model


def onnx_weights(
    runtime: Runtime, length: int, source: int, *, causal: bool = False, mask: Any = None
) -> Tensor:
    """Weights ``[L, S]`` (float64) of ``Attention`` run by ``runtime`` on the CPU."""
    query = np.zeros((1, 1, length, 4), np.float32)  # [B, H, L, D]: every score is 0
    key = np.zeros((1, 1, source, 4), np.float32)
    value = np.eye(source, dtype=np.float32)[None, None]  # one-hot values: output = weights
    feeds = {"Q": query, "K": key, "V": value}
    if mask is not None:
        feeds["M"] = mask
    model = _model(causal=causal, mask=mask)
    if runtime == "onnx":
        reference = framework_module("onnx.reference")
        (output,) = reference.ReferenceEvaluator(model).run(None, feeds)
    else:
        ort = framework_module("onnxruntime")
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        (output,) = session.run(None, feeds)
    return as_tensor(np.asarray(output, np.float64)[0, 0])


def _bool(runtime: Runtime) -> str:
    return boolean_polarity(onnx_weights(runtime, 2, 4, mask=PATTERN), torch.from_numpy(PATTERN))


def _fully_masked(runtime: Runtime, mask: Any) -> str:
    return empty_row_outcome(onnx_weights(runtime, 2, 3, mask=mask)[1])


EMPTY_ROW = np.array([[True, True, False], [False, False, False]])  # query 1 has no key


@probe("onnx.Attention.is_causal.alignment", framework="onnx")
def reference_causal_alignment() -> str:
    """``is_causal=1`` with 2 queries and 4 keys, no past, reference evaluator."""
    return causal_alignment(onnx_weights("onnx", 2, 4, causal=True))


@probe("onnx.Attention.attn_mask.bool", framework="onnx")
def reference_bool_mask() -> str:
    """A Boolean ``attn_mask``, reference evaluator."""
    return _bool("onnx")


@probe("onnx.Attention.fully_masked_row", framework="onnx")
def reference_fully_masked_row() -> str:
    """A Boolean ``attn_mask`` row that is all False, reference evaluator."""
    return _fully_masked("onnx", EMPTY_ROW)


@probe("onnxruntime.Attention.is_causal.alignment", framework="onnxruntime")
def runtime_causal_alignment() -> str:
    """``is_causal=1`` with 2 queries and 4 keys, no past, onnxruntime's CPU provider."""
    return causal_alignment(onnx_weights("onnxruntime", 2, 4, causal=True))


@probe("onnxruntime.Attention.is_causal.alignment.single_query", framework="onnxruntime")
def runtime_single_query_causal_alignment() -> str:
    """``is_causal=1`` with 1 query and 4 keys, no past: the decode step of issue 29020."""
    return causal_alignment(onnx_weights("onnxruntime", 1, 4, causal=True))


@probe("onnxruntime.Attention.attn_mask.bool", framework="onnxruntime")
def runtime_bool_mask() -> str:
    """A Boolean ``attn_mask``, onnxruntime's CPU provider."""
    return _bool("onnxruntime")


@probe("onnxruntime.Attention.fully_masked_row", framework="onnxruntime")
def runtime_fully_masked_row() -> str:
    """A Boolean ``attn_mask`` row that is all False, onnxruntime's CPU provider."""
    return _fully_masked("onnxruntime", EMPTY_ROW)


@probe("onnxruntime.Attention.fully_masked_row.additive", framework="onnxruntime")
def runtime_additive_fully_masked_row() -> str:
    """A float ``attn_mask`` row that is all -inf, onnxruntime's CPU provider."""
    additive = np.where(EMPTY_ROW, 0.0, -np.inf).astype(np.float32)
    return _fully_masked("onnxruntime", additive)
