"""Modules built (``nn.Softmax``, ``nn.MultiheadAttention`` and its layers, ``nn.Linear`` …).

Each is a value the pass can call later: what its ``forward`` does with a mask or a layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attention.review import api_calls
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import Module
from attention.review.sinks import MODULES
from attention.review.syntax import int_literal

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter


SHAPE_KEEPING = (
    "ReLU",
    "LeakyReLU",
    "GELU",
    "SiLU",
    "Tanh",
    "Sigmoid",
    "Dropout",
    "LayerNorm",
    "Identity",
    "ELU",
)
"""Layers whose output has their input's shape."""


@operation("Softmax")
def softmax_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.Softmax(dim)``: a module that normalises over ``dim``."""
    node, values, qualified, short, origin = c.node, c.values, c.qualified, c.short, c.origin
    if short == "Softmax" and qualified and qualified.startswith("torch.nn"):
        arg, _ = ev.argument(node, values, 0, "dim")
        dim = int_literal(arg.value) if arg is not None else None
        return Module("softmax", False, origin, dim=dim, implicit=arg is None)
    return NOT_MINE


@operation(*MODULES)
def attention_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.MultiheadAttention`` and the layers on it: a module whose masks the rules read."""
    node, values, qualified, short = c.node, c.values, c.qualified, c.short
    if short in MODULES and qualified and qualified.startswith("torch.nn"):
        return api_calls.construct(ev, MODULES[short], node, values)
    return NOT_MINE


@operation("ModuleList")
def module_list(ev: Interpreter, c: Call) -> Reading:
    """``nn.ModuleList([...])``: the layers it holds."""
    args, qualified, short, origin = c.args, c.qualified, c.short, c.origin
    if short == "ModuleList" and qualified and qualified.startswith("torch.nn") and args:
        return api_calls.layers_of(ev, args[0].value, origin)
    return NOT_MINE


@operation("Embedding")
def embedding_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.Embedding(...)``: a module whose output has ids' layout."""
    qualified, origin = c.qualified, c.origin
    if qualified == "torch.nn.Embedding":
        return Module("embedding", False, origin)
    return NOT_MINE


@operation("Linear", "LazyLinear")
def linear_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.Linear(in, out)``: a module with ``out`` features."""
    node, values, qualified, short, origin = c.node, c.values, c.qualified, c.short, c.origin
    if qualified in ("torch.nn.Linear", "torch.nn.LazyLinear"):
        position = 1 if short == "Linear" else 0
        arg, _ = ev.argument(node, values, position, "out_features")
        return Module("linear", False, origin, out=int_literal(arg.value) if arg else None)
    return NOT_MINE


@operation("Conv1d", "Conv2d")
def conv_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.Conv1d`` / ``nn.Conv2d``: a module with ``out_channels`` features."""
    node, values, qualified, origin = c.node, c.values, c.qualified, c.origin
    if qualified in ("torch.nn.Conv1d", "torch.nn.Conv2d"):
        arg, _ = ev.argument(node, values, 1, "out_channels")
        return Module("conv", False, origin, out=int_literal(arg.value) if arg else None)
    return NOT_MINE


@operation("Sequential")
def sequential_module(ev: Interpreter, c: Call) -> Reading:
    """``nn.Sequential(...)``: a module of parts."""
    values, qualified, origin = c.values, c.qualified, c.origin
    if qualified == "torch.nn.Sequential":
        return Module("sequential", False, origin, parts=tuple(values))
    return NOT_MINE


@operation(*SHAPE_KEEPING)
def shape_keeping_module(ev: Interpreter, c: Call) -> Reading:
    """Activations, dropout, norms: a module whose output has its input's shape."""
    qualified, short, origin = c.qualified, c.short, c.origin
    if short in SHAPE_KEEPING and qualified and qualified.startswith("torch.nn"):
        return Module("same", False, origin)
    return NOT_MINE


@operation(kinds=(Module,))
def embedding_called(ev: Interpreter, c: Call) -> Reading:
    """An embedding module called: its output in the ids' layout."""
    node, receiver = c.node, c.receiver
    if isinstance(receiver, Module) and receiver.kind == "embedding":
        return api_calls.embedded(ev, node)
    return NOT_MINE
