"""The runtime watch: the mask table applied to the masks real attention calls receive.

``with watch():`` pushes a :class:`torch.overrides.TorchFunctionMode` that sees every call of
``F.scaled_dot_product_attention``, ``F.multi_head_attention_forward`` (what
``nn.MultiheadAttention`` and the Transformer layers call on their ordinary path), the fused
inference paths ``torch._native_multi_head_attention`` and ``torch._transformer_encoder_layer_fwd``
with the nested-tensor conversion ``torch._nested_tensor_from_mask``, and, through
``BlockMask.as_tuple``, every ``flex_attention`` call with its ``BlockMask``.  It looks at the mask
values, reports what the rules of :mod:`attention.review.watch_rules` flag, and then calls the
original function with the original arguments: the results are the ones of an unwatched run.

A finding is a warning (one :class:`~attention.review.watch_rules.AttentionWatchWarning` subclass
per rule) naming the code, what was seen (shape, batch item, query row), the fix and the rows of
the mask-semantics table it rests on, as citable links; ``strict=True`` raises
:class:`~attention.review.watch_rules.AttentionWatchError` at the call instead.  Every finding is
also kept in :attr:`Watch.findings`.

>>> import torch, warnings
>>> import torch.nn.functional as F
>>> q = k = v = torch.randn(1, 1, 3, 4)
>>> future = torch.ones(3, 3, dtype=torch.bool).triu(diagonal=1)   # True = "masked" in mind
>>> with warnings.catch_warnings(record=True), watch() as seen:
...     out = F.scaled_dot_product_attention(q, k, v, attn_mask=future)
>>> print(seen.findings[0].headline)                  # doctest: +NORMALIZE_WHITESPACE
AW201 inverted-boolean-mask: attn_mask [3, 3] (torch.bool) allows exactly the keys after
each query (the future), and forbids every query its own key
>>> seen.findings[0].rows
('sdpa.attn_mask.bool',)

The fused inference paths of ``nn.MultiheadAttention`` and ``nn.TransformerEncoder(Layer)`` are
skipped by torch whenever a function mode is active (``has_torch_function`` is true for every
argument then); the watch answers that question as if it were not there, for those three
``forward`` methods only, so eval-mode inference still takes, and is checked on, the path it
takes unwatched.  Code inside ``torch.compile`` is not checked (the mode steps aside while a
graph is traced).
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import platform
import statistics
import sys
import threading
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.overrides import TorchFunctionMode

from attention.review.links import known_rows, row_url
from attention.review.watch_rules import RULES, AttentionWatchError

__all__ = ["Finding", "Watch", "WatchOverhead", "measure_overhead", "watch"]

_SDPA = "torch.nn.functional.scaled_dot_product_attention"
_MHA = "torch.nn.MultiheadAttention"
_ENCODER = "torch.nn.TransformerEncoderLayer"
_FLEX = "torch.nn.attention.flex_attention.flex_attention"

_RETURNS = {
    "zeros": "a row of zeros",
    "nan": "NaN",
    "uniform": "uniform weights over every key",
}


# -- findings -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One report of the watch: a rule, the API it was seen in, what was seen, the rows, where.

    ``rows`` are the mask-table rows this finding cites (``urls`` their addresses); ``returns``
    says what the call gives for the flagged rows on the installed torch, from the claims, where
    a row states it; ``location`` is ``path:line`` of the first caller outside torch.
    """

    code: str
    api: str
    seen: str
    rows: tuple[str, ...]
    urls: tuple[str, ...]
    returns: str | None = None
    location: str | None = None

    @property
    def name(self) -> str:
        """The rule's name (``inverted-boolean-mask``)."""
        return RULES[self.code].name

    @property
    def headline(self) -> str:
        """``CODE name: what was seen``, one line."""
        return f"{self.code} {self.name}: {self.seen}"

    def __str__(self) -> str:
        rule = RULES[self.code]
        lines = [self.headline, f"  {self.api}: {rule.message}."]
        if self.returns:
            lines.append(f"  {self.returns}.")
        lines.append(f"  Fix: {rule.fix}.")
        lines.extend(f"  {url}" for url in self.urls)
        return "\n".join(lines)


@dataclass(frozen=True)
class _Seen:
    """What a check saw, before the watch adds links, the release's result and the location."""

    code: str
    api: str
    seen: str
    rows: tuple[str, ...]
    returns_row: str | None = None


def _shape(tensor: Tensor) -> str:
    return f"[{', '.join(str(n) for n in tensor.shape)}]"


def _describe(what: str, mask: Tensor) -> str:
    return f"{what} {_shape(mask)} ({mask.dtype})"


def _where(names: Sequence[str], index: Sequence[int], skip_broadcast: Sequence[int] = ()) -> str:
    """``batch item 1, query 2``: ``index`` along ``names``.

    The dimensions in ``skip_broadcast`` (size 1 in the mask: they hold for every item) are left
    out.
    """
    parts = [f"{name} {i}" for n, (name, i) in enumerate(zip(names, index, strict=True))]
    kept = [part for n, part in enumerate(parts) if n not in skip_broadcast]
    return ", ".join(kept)


def _first(flags: Tensor) -> tuple[list[int], int]:
    """The index of the first True of ``flags`` and how many there are."""
    hits = flags.nonzero()
    return [int(i) for i in hits[0].tolist()], int(hits.shape[0])


def _more(count: int, unit: str) -> str:
    return f" (and {count - 1} more {unit})" if count > 1 else ""


def _names(query_dims: int, mask_dims: int) -> tuple[str, ...]:
    """Names of a mask's dimensions, right-aligned with ``[batch, head, query, key]``."""
    full = ("batch item", "head", "query", "key")
    names = full if query_dims >= 4 else ("batch item", "query", "key")[-query_dims:]
    return names[-mask_dims:] if mask_dims <= len(names) else full


# -- the checks of an allowed matrix (True = may attend), whatever the API's convention ----------


def _broadcast_dims(mask: Tensor) -> tuple[int, ...]:
    return tuple(n for n, size in enumerate(mask.shape[:-1]) if size == 1)


def _inverted(
    allowed: Tensor, length_q: int, length_k: int, what: str, mask: Tensor, names: Sequence[str]
) -> str | None:
    """What shows ``allowed`` (``[..., L, S]``) inverted, or None.

    Self-attention (L == S) with every diagonal entry forbidden, or a triangle allowing exactly
    the keys after each query, for either anchoring of the diagonal.
    """
    if allowed.dim() < 2 or allowed.shape[-2:] != (length_q, length_k) or length_q < 2:
        return None
    lead = names[:-2]
    if length_q == length_k:
        own = allowed.diagonal(0, -2, -1).any(-1)
        if bool(own.all()):
            return None
        index, count = _first(~own) if own.dim() else ([], 1)
        future = torch.ones(length_q, length_k, dtype=torch.bool, device=allowed.device).triu(1)
        at = allowed[tuple(index)] if index else allowed
        what_seen = (
            "allows exactly the keys after each query (the future), and forbids every query "
            "its own key"
            if bool(at.eq(future).all())
            else "forbids every query its own key (the whole diagonal)"
        )
        place = f" in {_where(lead, index)}{_more(count, 'slices')}" if index else ""
        return f"{_describe(what, mask)} {what_seen}{place}"
    if bool(allowed[..., 0, 0].any()):
        return None  # query 0 sees key 0: not a triangle of the future
    for diagonal in sorted({1, length_k - length_q + 1}):
        future = torch.ones(length_q, length_k, dtype=torch.bool, device=allowed.device)
        is_future = allowed.eq(future.triu(diagonal)).flatten(-2).all(-1)
        if bool(is_future.any()):
            index, count = _first(is_future) if is_future.dim() else ([], 1)
            place = f" in {_where(lead, index)}{_more(count, 'slices')}" if index else ""
            return (
                f"{_describe(what, mask)} allows exactly the keys after each query "
                f"(the future, L = {length_q}, S = {length_k}){place}"
            )
    return None


def _empty_rows(
    allowed: Tensor,
    what: str,
    mask: Tensor,
    names: Sequence[str],
    *,
    api: str,
    padding_rows: tuple[str, ...],
    row_rows: tuple[str, ...],
    returns_row: str | None,
    hidden_items: frozenset[int] = frozenset(),
) -> list[_Seen]:
    """AW203 where a mask broadcast over the queries hides every key of an item, else AW202."""
    empty = ~allowed.any(-1)  # [..., L] (L may be 1: a padding mask broadcast over queries)
    if not bool(empty.any()):
        return []
    lead = names[:-1]
    if allowed.dim() >= 2 and allowed.shape[-2] == 1 and lead and lead[0] == "batch item":
        items = sorted({int(i) for i in empty.flatten(1).any(-1).nonzero().flatten().tolist()})
        shown = ", ".join(str(i) for i in items[:8]) + (", …" if len(items) > 8 else "")
        noun = "item" if len(items) == 1 else "items"
        return [
            _Seen(
                "AW203",
                api,
                f"{_describe(what, mask)} hides every key of batch {noun} {shown}",
                padding_rows,
                returns_row,
            )
        ]
    if hidden_items and allowed.dim() >= 3:
        keep = torch.ones(empty.shape[0], dtype=torch.bool, device=empty.device)
        keep[sorted(hidden_items)] = False
        empty = empty & keep.view(-1, *([1] * (empty.dim() - 1)))
        if not bool(empty.any()):
            return []
    index, count = _first(empty) if empty.dim() else ([], 1)
    place = _where(names[:-1], index, _broadcast_dims(allowed)) if index else "every query"
    return [
        _Seen(
            "AW202",
            api,
            f"{_describe(what, mask)}: {place} may attend to no key{_more(count, 'rows')}",
            row_rows,
            returns_row,
        )
    ]


def _additive(mask: Tensor, query_dtype: torch.dtype, what: str, api: str) -> list[_Seen]:
    """AW204 (positive), AW205 (NaN, +inf) and AW206 (overflow in the query's dtype)."""
    found: list[_Seen] = []
    rows: tuple[str, ...] = ("sdpa.attn_mask.float",) if api == _SDPA else ("mha.attn_mask.float",)
    if what == "key_padding_mask":
        rows = ("mha.key_padding_mask.float",)
    top = float(mask.max())
    if top != top or top == float("inf"):
        nan = int(mask.isnan().sum())
        pos_inf = int(mask.eq(float("inf")).sum())
        parts = [f"{nan} NaN" if nan else "", f"{pos_inf} +inf" if pos_inf else ""]
        found.append(
            _Seen(
                "AW205",
                api,
                f"{_describe(what, mask)} holds {' and '.join(p for p in parts if p)} entries",
                rows,
            )
        )
    positive = mask.gt(0) & mask.isfinite()
    if bool(positive.any()):
        boolean = bool((mask.eq(0) | mask.eq(1)).all())
        index, count = _first(positive)
        found.append(
            _Seen(
                "AW204",
                api,
                f"{_describe(what, mask)} holds {count} positive entries"
                + (" (only 0.0 and 1.0: a Boolean mask turned float)" if boolean else "")
                + f", first at index {tuple(index)}",
                rows,
            )
        )
    if mask.dtype != query_dtype and query_dtype.is_floating_point:
        limit = torch.finfo(query_dtype).max
        if torch.finfo(mask.dtype).max > limit:
            large = mask.isfinite() & mask.abs().gt(limit)
            if bool(large.any()):
                worst = float(mask[large].abs().max())
                found.append(
                    _Seen(
                        "AW206",
                        api,
                        f"{_describe(what, mask)} holds {int(large.sum())} finite entries "
                        f"beyond ±{limit:.6g}, the range of the query's {query_dtype} "
                        f"(largest magnitude {worst:.6g}): they become -inf",
                        ("sdpa.attn_mask.float", "sdpa.attn_mask.float32.low_precision"),
                    )
                )
    return found


# -- one check per function the mode sees ---------------------------------------------------------


def _arg(args: Sequence[Any], kwargs: Mapping[str, Any], index: int, name: str) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else None


def _check_sdpa(args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int) -> list[_Seen]:
    query, key = _arg(args, kwargs, 0, "query"), _arg(args, kwargs, 1, "key")
    mask = _arg(args, kwargs, 3, "attn_mask")
    is_causal = bool(_arg(args, kwargs, 5, "is_causal"))
    length_q, length_k = int(query.shape[-2]), int(key.shape[-2])
    found: list[_Seen] = []
    if is_causal and length_q != length_k:
        found.append(
            _Seen(
                "AW207",
                _SDPA,
                f"is_causal=True with query {_shape(query)} and key {_shape(key)}: "
                f"L = {length_q} queries, S = {length_k} keys",
                ("sdpa.is_causal.alignment", "sdpa.is_causal.decode_step"),
            )
        )
    if not isinstance(mask, Tensor) or mask.numel() == 0:
        return found
    names = _names(query.dim(), mask.dim())
    if mask.dtype == torch.bool:
        allowed, fully, padding = mask, "sdpa.fully_masked_row", ("sdpa.attn_mask.bool",)
    elif mask.is_floating_point():
        found.extend(_additive(mask, query.dtype, "attn_mask", _SDPA))
        effective = mask.to(query.dtype) if query.dtype.is_floating_point else mask
        allowed = effective.ne(float("-inf"))
        fully, padding = "sdpa.fully_masked_row.additive", ("sdpa.attn_mask.float",)
    else:
        return found
    inverted = _inverted(allowed, length_q, length_k, "attn_mask", mask, names)
    if inverted is not None:
        return [*found, _Seen("AW201", _SDPA, inverted, ("sdpa.attn_mask.bool",))]
    found.extend(
        _empty_rows(
            allowed,
            "attn_mask",
            mask,
            names,
            api=_SDPA,
            padding_rows=(*padding, fully),
            row_rows=(fully,),
            returns_row=fully,
        )
    )
    return found


def _forbidden_to_allowed(mask: Tensor) -> Tensor:
    """``nn.MultiheadAttention``'s masks: Boolean True = masked out, or additive (-inf = out)."""
    return ~mask if mask.dtype == torch.bool else mask.ne(float("-inf"))


def _mha_masks(
    api: str,
    query: Tensor,
    batch: int | None,
    length_q: int,
    length_k: int,
    heads: int,
    attn_mask: Tensor | None,
    padding: Tensor | None,
    *,
    rows: tuple[str, str],
    returns_row: str | None,
) -> list[_Seen]:
    """The checks shared by the module's ordinary and fused paths (masks in its convention).

    ``attn_mask`` is ``[L, S]``, ``[B·H, L, S]`` or ``[B, H, L, S]``; ``padding`` is ``[B, S]``.
    """
    found: list[_Seen] = []
    hidden: frozenset[int] = frozenset()
    attn_row, padding_row = rows
    fully_rows = (returns_row,) if returns_row else ()
    if padding is not None and padding.numel():
        if padding.is_floating_point():
            found.extend(_additive(padding, query.dtype, "key_padding_mask", api))
        allowed = _forbidden_to_allowed(padding)
        if allowed.dim() == 2:
            hides = ~allowed.any(-1)
            if bool(hides.any()):
                hidden = frozenset(int(i) for i in hides.nonzero().flatten().tolist())
                found.extend(
                    _empty_rows(
                        allowed[:, None, :],
                        "key_padding_mask",
                        padding,
                        ("batch item", "query", "key"),
                        api=api,
                        padding_rows=(padding_row, *fully_rows),
                        row_rows=fully_rows,
                        returns_row=returns_row,
                    )
                )
        elif not bool(allowed.any()):
            found.append(
                _Seen(
                    "AW203",
                    api,
                    f"{_describe('key_padding_mask', padding)} hides every key",
                    (padding_row, *fully_rows),
                    returns_row,
                )
            )
            return found
    if attn_mask is None or attn_mask.numel() == 0:
        return found
    if attn_mask.is_floating_point():
        found.extend(_additive(attn_mask, query.dtype, "attn_mask", api))
    allowed = _forbidden_to_allowed(attn_mask)
    if allowed.dim() == 3 and batch is not None and allowed.shape[0] == batch * heads:
        allowed = allowed.view(batch, heads, length_q, length_k)
    names = ("batch item", "head", "query", "key")[-allowed.dim() :]
    inverted = _inverted(allowed, length_q, length_k, "attn_mask", attn_mask, names)
    if inverted is not None:
        return [*found, _Seen("AW201", api, inverted, (attn_row,))]
    if padding is not None and padding.numel() and padding.dim() == 2 and allowed.dim() >= 2:
        keys = _forbidden_to_allowed(padding)[:, None, None, :]
        allowed = (allowed if allowed.dim() == 4 else allowed[None, None]) & keys
        names = ("batch item", "head", "query", "key")
    found.extend(
        _empty_rows(
            allowed,
            "attn_mask" if padding is None else "attn_mask with key_padding_mask",
            attn_mask,
            names,
            api=api,
            padding_rows=(attn_row, *fully_rows),
            row_rows=fully_rows,
            returns_row=returns_row,
            hidden_items=hidden,
        )
    )
    return found


def _check_mha_forward(
    args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int
) -> list[_Seen]:
    query, key = _arg(args, kwargs, 0, "query"), _arg(args, kwargs, 1, "key")
    heads = int(_arg(args, kwargs, 4, "num_heads"))
    need_weights = _arg(args, kwargs, 15, "need_weights")
    need_weights = True if need_weights is None else bool(need_weights)
    batched = query.dim() == 3  # [L, B, E]: this function is sequence-first
    returns = "mha.fully_masked_row.need_weights_" + ("true" if need_weights else "false")
    return _mha_masks(
        _MHA,
        query,
        int(query.shape[1]) if batched else None,
        int(query.shape[0]),
        int(key.shape[0]),
        heads,
        _arg(args, kwargs, 16, "attn_mask"),
        _arg(args, kwargs, 14, "key_padding_mask"),
        rows=("mha.attn_mask.bool", "mha.key_padding_mask.bool"),
        returns_row=returns,
    )


def _fused(
    api: str, src: Tensor, key: Tensor, heads: int, mask: Any, mask_type: Any, **rows: Any
) -> list[_Seen]:
    """The fused paths' one merged mask: ``mask_type`` 1 is ``[B, S]`` padding, else attention."""
    if not isinstance(mask, Tensor):
        return []
    batch, length_q, length_k = int(src.shape[0]), int(src.shape[1]), int(key.shape[1])
    if mask_type == 1 or (mask.dim() == 2 and mask.shape[0] == batch and length_q != batch):
        return _mha_masks(api, src, batch, length_q, length_k, heads, None, mask, **rows)
    return _mha_masks(api, src, batch, length_q, length_k, heads, mask, None, **rows)


def _check_native_mha(
    args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int
) -> list[_Seen]:
    return _fused(
        _MHA,
        args[0],
        args[1],
        int(args[4]),
        _arg(args, kwargs, 9, "mask"),
        _arg(args, kwargs, 12, "mask_type"),
        rows=("mha.attn_mask.bool", "mha.key_padding_mask.bool"),
        returns_row="mha.fully_masked_row.fast_path",
    )


def _check_encoder_layer(
    args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int
) -> list[_Seen]:
    padding_row = "transformer_encoder_layer.src_key_padding_mask.bool.fast_path"
    return _fused(
        _ENCODER,
        args[0],
        args[0],
        int(args[2]),
        _arg(args, kwargs, 18, "mask"),
        _arg(args, kwargs, 19, "mask_type"),
        rows=("mha.attn_mask.bool", padding_row),
        returns_row=None,
    )


def _check_nested(args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int) -> list[_Seen]:
    keep = _arg(args, kwargs, 1, "mask")  # the encoder passes src_key_padding_mask.logical_not()
    if not isinstance(keep, Tensor) or keep.dim() != 2 or bool(keep.any(-1).all()):
        return []
    items = [int(i) for i in (~keep.any(-1)).nonzero().flatten().tolist()]
    noun = "item" if len(items) == 1 else "items"
    return [
        _Seen(
            "AW203",
            "torch.nn.TransformerEncoder",
            f"src_key_padding_mask {_shape(keep)} hides every key of batch {noun} "
            f"{', '.join(str(i) for i in items[:8])}{', …' if len(items) > 8 else ''}",
            ("transformer_encoder_layer.src_key_padding_mask.bool.fast_path",),
        )
    ]


_CHECKS: dict[Any, Callable[[Sequence[Any], Mapping[str, Any], int], list[_Seen]]] = {
    F.scaled_dot_product_attention: _check_sdpa,
    F.multi_head_attention_forward: _check_mha_forward,
    torch._native_multi_head_attention: _check_native_mha,
    torch._transformer_encoder_layer_fwd: _check_encoder_layer,
    torch._nested_tensor_from_mask: _check_nested,
}


def _check_block_mask(block_mask: Any, dense_limit: int) -> list[_Seen]:
    """flex_attention: query blocks with no key block; densely (mask_mod) when small enough."""
    from torch.nn.attention.flex_attention import create_mask

    length_q, length_k = (int(n) for n in block_mask.seq_lengths)
    shape = tuple(int(n) for n in block_mask.shape)
    names = ("batch item", "head", "query", "key")
    what = f"block_mask {list(shape)} (mask_mod {getattr(block_mask.mask_mod, '__name__', '?')})"
    fully = "flex_attention.fully_masked_row"
    if shape[0] * shape[1] * length_q * length_k <= dense_limit:
        allowed = create_mask(block_mask.mask_mod, shape[0], shape[1], length_q, length_k,
                              device=block_mask.kv_num_blocks.device)  # fmt: skip
        inverted = _inverted(allowed, length_q, length_k, "block_mask", allowed, names)
        if inverted is not None:
            seen = what + inverted.removeprefix(_describe("block_mask", allowed))
            return [_Seen("AW201", _FLEX, seen, ("flex_attention.mask_mod",))]
        empty = ~allowed.any(-1)
        if not bool(empty.any()):
            return []
        index, count = _first(empty)
        place = _where(names[:-1], index, _broadcast_dims(allowed))
        seen = f"{what}: {place} may attend to no key{_more(count, 'rows')}"
        return [_Seen("AW202", _FLEX, seen, (fully,), fully)]
    blocks = block_mask.kv_num_blocks
    if block_mask.full_kv_num_blocks is not None:
        blocks = blocks + block_mask.full_kv_num_blocks
    size = int(block_mask.BLOCK_SIZE[0])
    empty = blocks.eq(0)
    empty[..., (length_q + size - 1) // size :] = False  # blocks past L hold no query
    if not bool(empty.any()):
        return []
    index, count = _first(empty)
    first_row = index[-1] * size
    place = _where(names[:-2], index[:-1], _broadcast_dims(blocks))
    seen = (
        f"{what}: queries {first_row}..{min(first_row + size, length_q) - 1}"
        f"{' of ' + place if place else ''} may attend to no key block{_more(count, 'blocks')}"
    )
    return [_Seen("AW202", _FLEX, seen, (fully,), fully)]


# -- the mode, and the two places where torch would otherwise not show the call -------------------

_STATE = threading.local()  # .busy: a watch is inside a call it checked (nested watches pass)
_INSTALL_LOCK = threading.Lock()
_installed = 0
_original_has_torch_function = torch.overrides.has_torch_function
_original_as_tuple: Callable[..., Any] | None = None
_FAST_PATH_FORWARDS = frozenset(
    forward.__code__
    for forward in (
        nn.MultiheadAttention.forward,
        nn.TransformerEncoderLayer.forward,
        nn.TransformerEncoder.forward,
    )
)


def _watch_modes() -> list[_WatchMode] | None:
    """The function-mode stack when every mode on it is a watch, else None."""
    depth = torch._C._len_torch_function_stack()
    modes = [torch._C._get_function_stack_at(i) for i in range(depth)]
    if depth and all(isinstance(mode, _WatchMode) for mode in modes):
        return modes
    return None


def _has_torch_function(args: Any) -> bool:
    """``torch.overrides.has_torch_function``, blind to the watch in the fused-path checks."""
    if not torch.compiler.is_compiling() and sys._getframe(1).f_code in _FAST_PATH_FORWARDS:
        modes = _watch_modes()
        if modes is not None:
            for _ in modes:
                torch._C._pop_torch_function_stack()
            try:
                return _original_has_torch_function(args)
            finally:
                for mode in modes:
                    torch._C._push_on_torch_function_stack(mode)
    return _original_has_torch_function(args)


def _innermost_watch() -> Watch | None:
    for i in reversed(range(torch._C._len_torch_function_stack())):
        mode = torch._C._get_function_stack_at(i)
        if isinstance(mode, _WatchMode):
            return mode.owner
    return None


def _as_tuple(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``BlockMask.as_tuple``, which ``flex_attention`` calls once per call: check the mask."""
    assert _original_as_tuple is not None
    if not torch.compiler.is_compiling() and not getattr(_STATE, "busy", False):
        owner = _innermost_watch()
        if owner is not None:
            owner._run(lambda: _check_block_mask(self, owner.dense_limit))
    return _original_as_tuple(self, *args, **kwargs)


def _install() -> None:
    global _installed, _original_as_tuple
    with _INSTALL_LOCK:
        _installed += 1
        if _installed > 1:
            return
        torch.overrides.has_torch_function = _has_torch_function
        try:
            from torch.nn.attention.flex_attention import BlockMask
        except ImportError:  # pragma: no cover - every supported torch has it
            return
        _original_as_tuple = BlockMask.as_tuple
        BlockMask.as_tuple = _as_tuple  # type: ignore[method-assign]


def _uninstall() -> None:
    global _installed, _original_as_tuple
    with _INSTALL_LOCK:
        _installed -= 1
        if _installed:
            return
        torch.overrides.has_torch_function = _original_has_torch_function
        if _original_as_tuple is not None:
            from torch.nn.attention.flex_attention import BlockMask

            BlockMask.as_tuple = _original_as_tuple  # type: ignore[method-assign]
            _original_as_tuple = None


class _WatchMode(TorchFunctionMode):
    """Sees each torch call; checks the few attention entry points, then calls the original."""

    def __init__(self, owner: Watch) -> None:
        super().__init__()
        self.owner = owner

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
    ) -> Any:
        if kwargs is None:
            kwargs = {}
        if torch.compiler.is_compiling():
            return func(*args, **kwargs)
        check = _CHECKS.get(func)
        if check is None or getattr(_STATE, "busy", False):
            return func(*args, **kwargs)
        limit = self.owner.dense_limit
        self.owner._run(lambda: check(args, kwargs, limit))
        _STATE.busy = True  # an outer watch sees this same call next: it lets it pass
        try:
            return func(*args, **kwargs)
        finally:
            _STATE.busy = False


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_HERE = os.path.dirname(__file__) + os.sep


def _caller() -> str | None:
    """``path:line`` of the innermost frame outside torch and this package, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith((_TORCH_DIR, _HERE)) and "contextlib" not in name:
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


@functools.cache
def _expected_on_this_release() -> dict[str, str]:
    """Each row's expectation on the installed torch release (claims read once, when needed)."""
    from attention.semantics.claims import expected_for, load_claims

    release = torch.__version__.split("+")[0]
    return {claim.id: expected_for(claim, release) for claim in load_claims()}


def _returns(row: str | None) -> str | None:
    if row is None:
        return "No row of the table states what this path returns for such rows"
    word = _expected_on_this_release().get(row)
    if word is None:
        return None
    release = torch.__version__.split("+")[0]
    return f"On torch {release} this call returns {_RETURNS.get(word, word)} for them ({row})"


# -- the public entry point -----------------------------------------------------------------------


class Watch:
    """The context manager :func:`watch` returns; ``findings`` lists what it reported."""

    def __init__(
        self,
        strict: bool = False,
        *,
        ignore: Sequence[str] = (),
        warn: bool = True,
        base_url: str | None = None,
        version: str | None = None,
        language: str = "en",
        dense_limit: int = 1 << 22,
    ) -> None:
        unknown = sorted(set(ignore) - set(RULES))
        if unknown:
            raise ValueError(f"ignore names unknown rule codes {unknown}; known: {sorted(RULES)}")
        self.strict = strict
        self.ignore = frozenset(ignore)
        self.warn = warn
        self.base_url = base_url
        self.version = version
        self.language = language
        self.dense_limit = dense_limit
        self.findings: list[Finding] = []
        self.errors: list[str] = []  # checks that could not run on an input (never raised)
        self._modes: list[_WatchMode] = []

    def __enter__(self) -> Watch:
        _install()
        mode = _WatchMode(self)
        try:
            mode.__enter__()  # type: ignore[no-untyped-call]
        except BaseException:
            _uninstall()
            raise
        self._modes.append(mode)
        return self

    def __exit__(self, *exc: object) -> None:
        mode = self._modes.pop()
        try:
            mode.__exit__(*exc)  # type: ignore[no-untyped-call]
        finally:
            _uninstall()

    def _run(self, check: Callable[[], list[_Seen]]) -> None:
        """Run one check without ever breaking the call; report what it saw."""
        previous = getattr(_STATE, "busy", False)
        _STATE.busy = True
        try:
            with torch.no_grad():
                seen = check()
        except Exception as error:  # an input the checks do not understand: the call goes on
            self.errors.append(f"{type(error).__name__}: {error}")
            return
        finally:
            _STATE.busy = previous
        for item in seen:
            if item.code not in self.ignore:
                self._report(item)

    def _returns(self, item: _Seen) -> str | None:
        if item.code not in ("AW202", "AW203"):
            return None
        try:
            return _returns(item.returns_row)
        except Exception as error:
            self.errors.append(f"the claims could not be read: {error}")
            return None

    def _report(self, item: _Seen) -> None:
        try:
            known = known_rows()
        except Exception as error:  # a claims file being edited: cite the rows as they are
            self.errors.append(f"the claims could not be read: {error}")
            known = frozenset(item.rows)
        rows = tuple(row for row in item.rows if row in known) or item.rows[:1]
        finding = Finding(
            code=item.code,
            api=item.api,
            seen=item.seen,
            rows=rows,
            urls=tuple(
                row_url(row, base_url=self.base_url, version=self.version, language=self.language)
                for row in rows
            ),
            returns=self._returns(item),
            location=_caller(),
        )
        self.findings.append(finding)
        if self.strict:
            raise AttentionWatchError(str(finding), finding)
        if self.warn:
            warnings.warn_explicit(
                str(finding),
                RULES[item.code].warning,
                *_split(finding.location),
                module="attention.review.watch",
            )


def _split(location: str | None) -> tuple[str, int]:
    if location is None:
        return "<unknown>", 0
    path, _, line = location.rpartition(":")
    return path, int(line)


def watch(
    strict: bool = False,
    *,
    ignore: Sequence[str] = (),
    warn: bool = True,
    base_url: str | None = None,
    version: str | None = None,
    language: str = "en",
    dense_limit: int = 1 << 22,
) -> Watch:
    """Report the mask mistakes of the attention calls made inside the ``with`` block.

    Args:
        strict: raise :class:`~attention.review.watch_rules.AttentionWatchError` at the first
            finding, before the call runs, instead of warning.
        ignore: rule codes not to report (``("AW201",)`` where a mask that hides each token
            from itself is meant).
        warn: issue a warning per finding (otherwise they are only kept in ``findings``).
        base_url: the site the row links point to (default: the project's documentation).
        version: the site version they cite (default: this package's version).
        language: ``"en"`` or ``"zh_CN"``, the language of the linked pages.
        dense_limit: the largest ``B·H·L·S`` for which a ``flex_attention`` ``mask_mod`` is
            evaluated on every (query, key) pair; larger block masks are checked block by block.

    >>> import torch, warnings
    >>> from torch import nn
    >>> mha = nn.MultiheadAttention(embed_dim=4, num_heads=1, batch_first=True)
    >>> x = torch.ones(2, 3, 4)
    >>> padding = torch.tensor([[False, False, True], [True, True, True]])  # item 1: all padding
    >>> with warnings.catch_warnings(record=True), watch() as seen:
    ...     out, weights = mha(x, x, x, key_padding_mask=padding)
    >>> print(seen.findings[0].headline)              # doctest: +NORMALIZE_WHITESPACE
    AW203 padding-hides-item: key_padding_mask [2, 3] (torch.float32) hides every key of
    batch item 1
    >>> print(seen.findings[0].returns)
    On torch ... this call returns NaN for them (mha.fully_masked_row.need_weights_true)
    >>> weights[1].isnan().all().item()                     # as the row says, watched or not
    True
    """
    return Watch(
        strict,
        ignore=ignore,
        warn=warn,
        base_url=base_url,
        version=version,
        language=language,
        dense_limit=dense_limit,
    )


# -- what the watch costs -------------------------------------------------------------------------


@dataclass(frozen=True)
class WatchOverhead:
    """Watched / unwatched time of one forward pass of a small Transformer encoder, per pass.

    ``ratios`` maps a pass (``inference``: eval mode under ``torch.no_grad()``, torch's fused
    path; ``training``: train mode with autograd) to the median of the per-round ratios;
    ``ratio`` is the larger of the two.
    """

    ratios: Mapping[str, float]
    rounds: Mapping[str, tuple[tuple[float, float], ...]]  # (unwatched, watched) seconds a round
    model: Mapping[str, int] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """The worst pass's ratio: the figure held against the goal (at most 1.10)."""
        return max(self.ratios.values())

    def as_json(self) -> dict[str, object]:
        """The record ``nox -s bench`` writes (``docs/_data/watch-benchmark.json``)."""
        return {
            "schema": 1,
            "what": "attention.review.watch overhead on a Transformer encoder forward pass",
            "timer": "torch.utils.benchmark.Timer.blocked_autorange, interleaved rounds",
            "model": dict(self.model),
            "ratio": self.ratio,
            "target": 1.10,
            "met": self.ratio <= 1.10,
            "passes": {
                name: {
                    "ratio": self.ratios[name],
                    "unwatched_seconds_median": statistics.median(r[0] for r in runs),
                    "watched_seconds_median": statistics.median(r[1] for r in runs),
                    "rounds": [list(r) for r in runs],
                }
                for name, runs in self.rounds.items()
            },
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "date": dt.date.today().isoformat(),
        }


def _interleaved(
    plain_run: Callable[[], object],
    watched_run: Callable[[], object],
    rounds: int,
    min_run_time: float,
) -> list[tuple[float, float]]:
    """(unwatched, watched) seconds per round, which one goes first alternating."""
    from torch.utils.benchmark import Timer

    plain = Timer("run()", globals={"run": plain_run})
    seen = Timer("run()", globals={"run": watched_run})
    plain_run(), watched_run()  # warm-up
    runs = []
    for round_number in range(rounds):
        order = (plain, seen) if round_number % 2 == 0 else (seen, plain)
        medians = {id(t): t.blocked_autorange(min_run_time=min_run_time).median for t in order}
        runs.append((medians[id(plain)], medians[id(seen)]))
    return runs


def measure_overhead(
    rounds: int = 5,
    min_run_time: float = 0.5,
    *,
    layers: int = 4,
    d_model: int = 256,
    heads: int = 8,
    batch: int = 8,
    length: int = 128,
) -> WatchOverhead:
    """Time a forward pass with and without :func:`watch`, interleaved in one process.

    The encoder (``nn.TransformerEncoder`` of ``layers`` ``nn.TransformerEncoderLayer``,
    feed-forward width ``4·d_model``, ``batch_first``) gets a padding mask that hides the last
    quarter of every other item, so each layer's mask is checked.  Each round times the
    unwatched and the watched pass (alternating which goes first) with ``blocked_autorange``; a
    ratio is the median of the per-round ratios, so a machine whose load changes while it runs
    moves both sides.

    >>> overhead = measure_overhead(rounds=1, min_run_time=0.01, layers=1, d_model=8, heads=2,
    ...                             batch=2, length=4)
    >>> sorted(overhead.ratios), overhead.ratio > 0
    (['inference', 'training'], True)
    """
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, layers)
    x = torch.randn(batch, length, d_model)
    padding = torch.zeros(batch, length, dtype=torch.bool)
    padding[::2, length - length // 4 :] = True

    def inference() -> object:
        encoder.eval()
        with torch.no_grad():
            return encoder(x, src_key_padding_mask=padding)

    def training() -> object:
        encoder.train()
        return encoder(x, src_key_padding_mask=padding)

    def watched(run: Callable[[], object]) -> Callable[[], object]:
        def call() -> object:
            with watch(warn=False):
                return run()

        return call

    times: dict[str, list[tuple[float, float]]] = {}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The PyTorch API of nested tensors")
        for name, run in (("inference", inference), ("training", training)):
            times[name] = _interleaved(run, watched(run), rounds, min_run_time)
    return WatchOverhead(
        ratios={name: statistics.median(w / p for p, w in runs) for name, runs in times.items()},
        rounds={name: tuple(runs) for name, runs in times.items()},
        model={
            "layers": layers,
            "d_model": d_model,
            "heads": heads,
            "dim_feedforward": 4 * d_model,
            "batch": batch,
            "length": length,
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attention.review.watch --out record.json``: measure and record the overhead."""
    parser = argparse.ArgumentParser(prog="python -m attention.review.watch", description=__doc__)
    parser.add_argument("--out", type=Path, help="write the JSON record here")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--min-run-time", type=float, default=0.2)
    options = parser.parse_args(argv)
    overhead = measure_overhead(options.rounds, options.min_run_time)
    record = overhead.as_json()
    for name, ratio in overhead.ratios.items():
        print(f"watch overhead, {name:9s}: x{ratio:.3f} (goal: at most x1.10)")
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {options.out}")
    return 0


class _CallableModule(types.ModuleType):
    """``attention.review.watch`` is this module once imported: calling it calls :func:`watch`."""

    def __call__(self, strict: bool = False, **options: Any) -> Watch:
        return watch(strict, **options)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    raise SystemExit(main())
