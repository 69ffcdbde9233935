"""Stand-ins for JAX, Flax, flash-attn and xFormers, faithful or flipped, for the probes' tests.

The cross-framework probes fetch their framework from ``sys.modules`` when they run, so a test can
install a small module that behaves like the real one -- implemented here in NumPy or torch from
the behaviour the claims state -- and show two things without the real package: the faithful
stand-in passes every row (the probe reads the weights as it should), and a stand-in that differs
in one respect fails exactly the rows about that respect (the probe can fail).  The live rows
against the real packages run in ``nox -s semantics_ecosystem``.

Each ``install_*`` takes pytest's ``monkeypatch`` (undone after the test) and a :class:`Behaviour`.
"""

from __future__ import annotations

import importlib.machinery
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch
from torch import Tensor

from attention.semantics import report
from attention.semantics.probes import flash_attn_func, xformers_bias


@dataclass(frozen=True)
class Behaviour:
    """How a stand-in treats masks; the defaults are what the real library does."""

    invert_mask: bool = False  # Boolean mask read as True = masked out
    causal: str = "upper_left"  # where the causal triangle sits when T != S
    empty_row: str = "uniform"  # a row with no allowed key: uniform / zeros / nan
    float_mask: str = "error"  # a floating mask: error / boolean (nonzero = keep)
    bias_ignored: bool = False  # the additive bias is dropped
    window_counts_self: bool = False  # window_size=(W, 0) covers W keys, the query's included
    lengths_ignored: bool = False  # query_seq_lengths / key_value_seq_lengths have no effect
    window_ignored_without_mask: bool = False  # jax before PR 32357: a window alone was dropped


FAITHFUL_JAX = Behaviour()
FAITHFUL_FLAX = Behaviour(float_mask="boolean")
FAITHFUL_FLASH = Behaviour(causal="lower_right", empty_row="zeros")


def _module(name: str, **attributes: Any) -> ModuleType:
    module = ModuleType(name)
    # a spec, so importlib.util.find_spec (missing_framework) accepts the stand-in
    module.__spec__ = importlib.machinery.ModuleSpec(name, loader=None)
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def _causal(length: int, source: int, alignment: str) -> np.ndarray:
    offset = source - length if alignment == "lower_right" else 0
    return np.tri(length, source, k=offset, dtype=bool)  # [T, S] allowed


def _attend(
    query: Any,
    key: Any,
    value: Any,
    allowed: np.ndarray,
    bias: Any,
    behaviour: Behaviour,
) -> np.ndarray:
    """softmax(q k^T / sqrt(H) + bias, masked) v in the JAX layout [B, T, N, H]."""
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (query, key, value))
    logits = np.einsum("btnh,bsnh->bnts", q, k) / math.sqrt(q.shape[-1])  # [B, N, T, S]
    if bias is not None and not behaviour.bias_ignored:
        logits = logits + np.asarray(bias, dtype=np.float64)
    allowed = np.broadcast_to(allowed, logits.shape)
    # like the real libraries: masked scores become a large finite negative, not -inf
    logits = np.where(allowed, logits, np.finfo(np.float32).min)
    with np.errstate(invalid="ignore"):
        shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
        weights = shifted / shifted.sum(axis=-1, keepdims=True)
    empty = ~allowed.any(axis=-1, keepdims=True)
    if behaviour.empty_row == "zeros":
        weights = np.where(empty, 0.0, weights)
    elif behaviour.empty_row == "nan":
        weights = np.where(empty, np.nan, weights)
    return np.einsum("bnts,bsnh->btnh", weights, v).astype(np.float32)


def _boolean(mask: Any, behaviour: Behaviour) -> np.ndarray:
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        if behaviour.float_mask == "error":
            raise ValueError(f"mask dtype should be bool, but got {array.dtype}")
        array = array != 0
    return ~array if behaviour.invert_mask else array


def _window(length: int, source: int, left: int, right: int) -> np.ndarray:
    """``[T, S]`` allowed: query i sees keys i - left .. i + right."""
    rows, columns = np.arange(length)[:, None], np.arange(source)[None, :]
    return (columns >= rows - left) & (columns <= rows + right)


def fake_jax(behaviour: Behaviour = FAITHFUL_JAX) -> dict[str, ModuleType]:
    """``jax`` and ``jax.nn`` with a ``dot_product_attention`` that behaves as ``behaviour``."""

    def dot_product_attention(
        query: Any,
        key: Any,
        value: Any,
        bias: Any = None,
        mask: Any = None,
        *,
        is_causal: bool = False,
        query_seq_lengths: Any = None,
        key_value_seq_lengths: Any = None,
        local_window_size: Any = None,
        **ignored: Any,
    ) -> np.ndarray:
        length, source = np.shape(query)[1], np.shape(key)[1]
        allowed = np.ones((length, source), dtype=bool)
        if mask is not None:
            allowed = allowed & _boolean(mask, behaviour)
        if is_causal:
            allowed = allowed & _causal(length, source, behaviour.causal)
        alone = mask is None and not is_causal
        if local_window_size is not None and not (behaviour.window_ignored_without_mask and alone):
            left, right = (
                (local_window_size,) * 2
                if isinstance(local_window_size, int)
                else local_window_size
            )
            allowed = allowed & _window(
                length, source, left - int(behaviour.window_counts_self), right
            )
        lengths = not behaviour.lengths_ignored
        if key_value_seq_lengths is not None and lengths:  # keys >= the length are padding
            allowed = allowed & (np.arange(source) < np.asarray(key_value_seq_lengths)[0])
        padded = np.zeros(length, dtype=bool)
        if query_seq_lengths is not None and lengths:  # so are queries >= theirs
            padded = np.arange(length) >= np.asarray(query_seq_lengths)[0]
            allowed = allowed & ~padded[:, None]
        output = _attend(query, key, value, allowed, bias, behaviour)
        output[:, padded] = 0.0  # the padded queries' outputs are zeroed after the softmax
        return output

    nn = _module("jax.nn", dot_product_attention=dot_product_attention)
    return {"jax": _module("jax", nn=nn), "jax.nn": nn}


def fake_flax(behaviour: Behaviour = FAITHFUL_FLAX) -> dict[str, ModuleType]:
    """``flax`` and ``flax.linen`` with ``dot_product_attention`` and ``make_causal_mask``."""

    def dot_product_attention(
        query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None, **ignored: Any
    ) -> np.ndarray:
        length, source = np.shape(query)[1], np.shape(key)[1]
        allowed = np.ones((length, source), dtype=bool)
        if mask is not None:
            allowed = allowed & _boolean(mask, behaviour)
        return _attend(query, key, value, allowed, bias, behaviour)

    def make_causal_mask(x: Any) -> np.ndarray:
        length = np.shape(x)[-1]
        lower = _causal(length, length, behaviour.causal)
        mask = ~lower if behaviour.invert_mask else lower
        return mask.astype(np.float32)[None, None]  # [B, 1, T, T], 1 = may attend

    linen = _module(
        "flax.linen", dot_product_attention=dot_product_attention, make_causal_mask=make_causal_mask
    )
    return {"flax": _module("flax", linen=linen), "flax.linen": linen}


def _torch_attention(
    query: Tensor, key: Tensor, value: Tensor, allowed: Tensor, behaviour: Behaviour
) -> Tensor:
    """Attention in the ``[B, L, H, D]`` layout of flash-attn and xFormers, masked by ``allowed``."""
    scores = torch.einsum("blhd,bshd->bhls", query, key) / math.sqrt(query.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # NaN on a row with no allowed key
    if behaviour.empty_row == "zeros":
        weights = torch.nan_to_num(weights, nan=0.0)
    return torch.einsum("bhls,bshd->blhd", weights, value)


def fake_flash_attn(behaviour: Behaviour = FAITHFUL_FLASH) -> dict[str, ModuleType]:
    """``flash_attn`` with a ``flash_attn_func`` (bottom-right causal, zeros for empty rows)."""

    def flash_attn_func(
        query: Tensor,
        key: Tensor,
        value: Tensor,
        causal: bool = False,
        window_size: tuple[int, int] = (-1, -1),
    ) -> Tensor:
        length, source = query.shape[1], key.shape[1]
        allowed = torch.ones(length, source, dtype=torch.bool)
        if causal:
            allowed = torch.from_numpy(_causal(length, source, behaviour.causal))
        left, right = window_size
        if left >= 0:  # keys i + S - L - left .. i + S - L + right, inclusive (flash-attn's docs)
            left -= int(behaviour.window_counts_self)
            rows = torch.arange(length)[:, None] + source - length
            columns = torch.arange(source)[None, :]
            allowed &= (columns >= rows - left) & ((right < 0) | (columns <= rows + right))
        return _torch_attention(query, key, value, allowed, behaviour)

    return {"flash_attn": _module("flash_attn", flash_attn_func=flash_attn_func)}


def fake_xformers(
    *, swapped: bool = False, blocks_ignored: bool = False, windows_shifted: bool = False
) -> dict[str, ModuleType]:
    """``xformers.ops`` and its bias classes, each able to ``materialize`` itself.

    ``swapped`` exchanges the top-left and bottom-right alignments, ``blocks_ignored`` lets packed
    sequences see each other, ``windows_shifted`` moves both local-attention conventions by one
    key (the causal window covers W + 1 keys, ``window_left=W`` W keys).
    """
    first, second = ("lower_right", "upper_left") if swapped else ("upper_left", "lower_right")
    shift = int(windows_shifted)

    def additive(allowed: np.ndarray, dtype: Any, device: Any) -> Tensor:
        bias = torch.zeros(allowed.shape, dtype=dtype, device=device)
        return bias.masked_fill(~torch.from_numpy(allowed).to(device), float("-inf"))

    class _Bias:
        alignment = first
        window: tuple[int, int] | None = None  # keys i - left .. i + right (bottom-right rows)

        def allowed(self, length: int, source: int) -> np.ndarray:
            allowed = _causal(length, source, self.alignment)
            if self.window is not None:
                offset = source - length  # bottom-right: the last query faces the last key
                allowed = allowed & _window(length, source, self.window[0] - offset, offset)
            return allowed

        def materialize(
            self, shape: tuple[int, ...], dtype: Any = torch.float32, device: Any = "cpu"
        ) -> Tensor:
            return additive(self.allowed(shape[-2], shape[-1]), dtype, device)

    class LowerTriangularMask(_Bias):
        alignment = first

    class LowerTriangularFromBottomRightMask(_Bias):
        alignment = second

    class LowerTriangularFromBottomRightLocalAttentionMask(_Bias):
        alignment = second

        def __init__(self, window_size: int) -> None:
            self.window = (window_size - 1 + shift, 0)

    class LocalAttentionFromBottomRightMask(_Bias):
        def __init__(self, window_left: int, window_right: int) -> None:
            self.window_left, self.window_right = window_left - shift, window_right

        def allowed(self, length: int, source: int) -> np.ndarray:
            offset = source - length
            return _window(length, source, self.window_left - offset, self.window_right + offset)

    class BlockDiagonalMask(_Bias):
        causal = False

        def __init__(self, queries: list[int], keys: list[int], window: int | None) -> None:
            self.queries, self.keys, self.local = queries, keys, window

        @classmethod
        def from_seqlens(cls, q_seqlen: list[int], kv_seqlen: list[int] | None = None) -> Any:
            return cls(list(q_seqlen), list(kv_seqlen or q_seqlen), None)

        def make_local_attention(self, window_size: int) -> Any:
            return type(self)(self.queries, self.keys, window_size - 1 + shift)

        def allowed(self, length: int, source: int) -> np.ndarray:
            if blocks_ignored:
                return self.block(length, source)
            allowed = np.zeros((length, source), dtype=bool)
            row = column = 0
            for queries, keys in zip(self.queries, self.keys, strict=True):
                allowed[row : row + queries, column : column + keys] = self.block(queries, keys)
                row, column = row + queries, column + keys
            return allowed

        def block(self, queries: int, keys: int) -> np.ndarray:
            allowed = np.ones((queries, keys), dtype=bool)
            if self.causal:
                allowed &= _causal(queries, keys, first)
            if self.local is not None:
                allowed &= _window(queries, keys, self.local, keys)
            return allowed

    class BlockDiagonalCausalMask(BlockDiagonalMask):
        causal = True

    def memory_efficient_attention(
        query: Tensor, key: Tensor, value: Tensor, attn_bias: Any = None
    ) -> Tensor:
        length, source = query.shape[1], key.shape[1]
        allowed = torch.from_numpy(attn_bias.allowed(length, source))
        return _torch_attention(query, key, value, allowed, Behaviour(empty_row="zeros"))

    attn_bias = _module(
        "xformers.ops.fmha.attn_bias",
        LowerTriangularMask=LowerTriangularMask,
        LowerTriangularFromBottomRightMask=LowerTriangularFromBottomRightMask,
        LowerTriangularFromBottomRightLocalAttentionMask=(
            LowerTriangularFromBottomRightLocalAttentionMask
        ),
        LocalAttentionFromBottomRightMask=LocalAttentionFromBottomRightMask,
        BlockDiagonalMask=BlockDiagonalMask,
        BlockDiagonalCausalMask=BlockDiagonalCausalMask,
    )
    fmha = _module("xformers.ops.fmha", attn_bias=attn_bias)
    ops = _module("xformers.ops", memory_efficient_attention=memory_efficient_attention, fmha=fmha)
    return {
        "xformers": _module("xformers", ops=ops),
        "xformers.ops": ops,
        "xformers.ops.fmha": fmha,
        "xformers.ops.fmha.attn_bias": attn_bias,
    }


def install(monkeypatch: pytest.MonkeyPatch, modules: dict[str, ModuleType]) -> None:
    """Put ``modules`` into ``sys.modules`` for the rest of the test."""
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def on_this_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the CUDA-only probes run on the CPU in float64: for stand-ins only."""
    real = report.missing_requirement
    monkeypatch.setattr(
        report, "missing_requirement", lambda need: None if need == "cuda" else real(need)
    )
    for module in (flash_attn_func, xformers_bias):
        monkeypatch.setattr(module, "DEVICE", "cpu")
        monkeypatch.setattr(module, "DTYPE", torch.float64)


Installer = Callable[[pytest.MonkeyPatch], None]


def installer(*sets: dict[str, ModuleType], cpu: bool = False) -> Installer:
    """An installer for the module sets ``sets`` (and ``on_this_cpu`` when ``cpu``)."""

    def run(monkeypatch: pytest.MonkeyPatch) -> None:
        for modules in sets:
            install(monkeypatch, modules)
        if cpu:
            on_this_cpu(monkeypatch)

    return run


FAITHFUL: Installer = installer(
    fake_jax(), fake_flax(), fake_flash_attn(), fake_xformers(), cpu=True
)
"""Every stand-in, each behaving as the claims say."""

# (name, installer, the rows it must break, the rows it may break as well)
FLIPS: list[tuple[str, Installer, set[str], set[str]]] = [
    (
        "jax_mask_inverted",
        installer(fake_jax(Behaviour(invert_mask=True)), fake_flax()),
        {"jax.nn.dot_product_attention.mask.bool"},
        # the inverted empty row lets every key through: uniform either way
        {
            "jax.nn.dot_product_attention.fully_masked_row",
            "jax.nn.dot_product_attention.seq_lengths.mask.is_causal",
        },
    ),
    (
        "jax_float_mask_accepted",
        installer(fake_jax(Behaviour(float_mask="boolean")), fake_flax()),
        {"jax.nn.dot_product_attention.mask.float"},
        set(),
    ),
    (
        "jax_bias_ignored",
        installer(fake_jax(Behaviour(bias_ignored=True)), fake_flax()),
        {"jax.nn.dot_product_attention.bias", "jax.nn.dot_product_attention.fully_masked_row.bias"},
        set(),
    ),
    (
        "jax_causal_lower_right",
        installer(fake_jax(Behaviour(causal="lower_right")), fake_flax()),
        {"jax.nn.dot_product_attention.is_causal.alignment"},
        set(),
    ),
    (
        "jax_seq_lengths_ignored",
        installer(fake_jax(Behaviour(lengths_ignored=True)), fake_flax()),
        {
            "jax.nn.dot_product_attention.key_value_seq_lengths",
            "jax.nn.dot_product_attention.query_seq_lengths",
            "jax.nn.dot_product_attention.seq_lengths.mask.is_causal",
        },
        # a key length of 0 ignored leaves every key: uniform either way
        set(),
    ),
    (
        "jax_window_counts_self",
        installer(fake_jax(Behaviour(window_counts_self=True)), fake_flax()),
        {"jax.nn.dot_product_attention.local_window_size"},
        set(),
    ),
    (
        "jax_window_ignored_without_mask",
        installer(fake_jax(Behaviour(window_ignored_without_mask=True)), fake_flax()),
        {"jax.nn.dot_product_attention.local_window_size.without_mask"},
        set(),
    ),
    (
        "jax_empty_row_zeros",
        installer(fake_jax(Behaviour(empty_row="zeros")), fake_flax()),
        {
            "jax.nn.dot_product_attention.fully_masked_row",
            "jax.nn.dot_product_attention.key_value_seq_lengths.zero",
        },
        set(),
    ),
    (
        "flax_mask_inverted",
        installer(fake_jax(), fake_flax(Behaviour(float_mask="boolean", invert_mask=True))),
        {
            "flax.linen.dot_product_attention.mask.bool",
            "flax.linen.dot_product_attention.mask.float",
            "flax.linen.make_causal_mask",
        },
        {"flax.linen.dot_product_attention.fully_masked_row"},
    ),
    (
        "flax_float_mask_rejected",
        installer(fake_jax(), fake_flax(Behaviour(float_mask="error"))),
        {"flax.linen.dot_product_attention.mask.float"},
        set(),
    ),
    (
        "flax_empty_row_nan",
        installer(fake_jax(), fake_flax(Behaviour(float_mask="boolean", empty_row="nan"))),
        {"flax.linen.dot_product_attention.fully_masked_row"},
        set(),
    ),
    (
        "flash_attn_causal_upper_left",
        installer(fake_flash_attn(Behaviour(empty_row="zeros")), cpu=True),
        {"flash_attn.flash_attn_func.causal.alignment"},
        # an upper-left triangle leaves no query without a key
        {"flash_attn.flash_attn_func.fully_masked_row"},
    ),
    (
        "flash_attn_empty_row_nan",
        installer(fake_flash_attn(Behaviour(causal="lower_right", empty_row="nan")), cpu=True),
        {"flash_attn.flash_attn_func.fully_masked_row"},
        set(),
    ),
    (
        "flash_attn_window_counts_self",
        installer(
            fake_flash_attn(
                Behaviour(causal="lower_right", empty_row="zeros", window_counts_self=True)
            ),
            cpu=True,
        ),
        {"flash_attn.flash_attn_func.window_size"},
        set(),
    ),
    (
        "xformers_biases_swapped",
        installer(fake_xformers(swapped=True), cpu=True),
        {
            "xformers.LowerTriangularMask.alignment",
            "xformers.LowerTriangularFromBottomRightMask.alignment",
            "xformers.LowerTriangularMask.materialize.alignment",
            "xformers.LowerTriangularFromBottomRightMask.materialize.alignment",
            "xformers.BlockDiagonalCausalMask.alignment",
        },
        # the packed blocks are square: their triangles sit the same either way
        set(),
    ),
    (
        "xformers_blocks_ignored",
        installer(fake_xformers(blocks_ignored=True), cpu=True),
        {"xformers.BlockDiagonalMask.packed", "xformers.BlockDiagonalCausalMask.alignment"},
        set(),
    ),
    (
        "xformers_windows_shifted",
        installer(fake_xformers(windows_shifted=True), cpu=True),
        {
            "xformers.LowerTriangularFromBottomRightLocalAttentionMask.window_size",
            "xformers.LocalAttentionFromBottomRightMask.window_left",
        },
        set(),
    ),
]
