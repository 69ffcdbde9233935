"""The runtime watch: the mask table applied to the masks real attention calls receive.

``with watch():`` replaces, while it is open, the few torch functions where masks meet
attention: ``F.scaled_dot_product_attention``, ``F.multi_head_attention_forward`` (what
``nn.MultiheadAttention`` and the Transformer layers call on their ordinary path), the fused
inference paths ``torch._native_multi_head_attention`` and ``torch._transformer_encoder_layer_fwd``
with the nested-tensor conversion ``torch._nested_tensor_from_mask``, and, through
``BlockMask.as_tuple``, every ``flex_attention`` call with its ``BlockMask``; for hand-written
attention, the softmaxes, the masked fills, the additions and subtractions of a mask and the
products ``q @ kᵀ`` (and their scaling by a number); and ``F.embedding``, to keep the token ids
last embedded with a padding index, whose padding shows whether a sequence-first module's input
is batch first.  It looks at the mask values, reports what
the rules of :mod:`attention.review.watch_rules` flag, and calls the original function with the
original arguments: the results are the ones of an unwatched run.  Every other torch call runs
untouched, so the watch costs a few microseconds per attention call.

A mask is read once per value: the watch keeps what it saw for a small mask on the CPU by its
bytes (a padding mask built anew for every batch is read once per padding pattern) and for any
other by identity and version counter (an in-place change moves the version), so a causal mask
built once and reused moves no data after its first call.  What changes with every call is read
as well, to see NaN and rows masked whole: on every softmax call its weights (their maximum) and,
unless one known mask made its scores, the scores (their minimum); on an attention call whose
masks hide some key, its output (its sum), once per mask tensor.  ``watch(every=N)`` checks one
call in ``N``.

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

The fused inference paths of ``nn.MultiheadAttention`` and ``nn.TransformerEncoder(Layer)``
run as they do unwatched (no function mode is pushed, so torch's ``has_torch_function`` test is
unchanged) and are checked there.  Code inside ``torch.compile`` is not checked (the wrappers
step aside while a graph is traced).  A watch sees the thread that opened it;
``watch(threads=True)`` sees every thread while it is open.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import os
import sys
import threading
import types
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch import Tensor

from attention.review import apis
from attention.review.links import known_rows, row_url
from attention.review.watch_rules import RULES, AttentionWatchError

__all__ = ["Finding", "Watch", "watch"]

_T = TypeVar("_T")

_SDPA = apis.SDPA.name
_MHA = apis.MHA.name
_ENCODER = apis.TRANSFORMER_ENCODER_LAYER.name
_ENCODER_STACK = apis.TRANSFORMER_ENCODER.name
_FLEX = apis.FLEX_ATTENTION.name
# each watched function's arguments by keyword (its row in apis.py): where the watch reads them
_S = {argument.keyword: argument for argument in apis.SDPA.arguments}
_F = {argument.keyword: argument for argument in apis.MHA_FORWARD.arguments}
_NATIVE = {argument.keyword: argument for argument in apis.NATIVE_MHA.arguments}
_LAYER = {argument.keyword: argument for argument in apis.TRANSFORMER_ENCODER_LAYER_FWD.arguments}
_NESTED = {argument.keyword: argument for argument in apis.NESTED_FROM_MASK.arguments}


def _owner(api: apis.Api) -> tuple[Any, str]:
    """Where an API row's function lives: its module and attribute (``F``, ``"embedding"``)."""
    module, _, attribute = api.name.rpartition(".")
    return importlib.import_module(module), attribute


def _function(api: apis.Api) -> Any:
    """An API row's function, as imported (before any watch replaces it)."""
    owner, attribute = _owner(api)
    return getattr(owner, attribute)


# the functions the watch sits on (each checked by _CHECKS, cached by _KEYS): rows of apis.py
_ENTRY_POINTS = (
    apis.SDPA,
    apis.MHA_FORWARD,
    apis.NATIVE_MHA,
    apis.TRANSFORMER_ENCODER_LAYER_FWD,
    apis.NESTED_FROM_MASK,
)
_MHA_FORWARD = _function(apis.MHA_FORWARD)

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
        # a slice that allows no key at all is not inverted: AW202 / AW203 report it
        own = allowed.diagonal(0, -2, -1).any(-1) | ~allowed.flatten(-2).any(-1)
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


def _reversed_padding(
    hidden: Tensor,
    keys: Callable[[], Any] | None,
    what: str,
    mask: Tensor,
    api: str,
    rows: tuple[str, ...],
) -> _Seen | None:
    """AW214: ``hidden`` ``[B, S]`` (True = hidden) hides a prefix of every item, keeps a suffix.

    That is right padding read the wrong way round, or left padding; where ``keys()`` gives the
    keys ``[B, S, E]`` and the hidden keys of every item that hides two or more are one repeated
    vector (as the embedding of a padding token is), it is taken for left padding and not
    reported.
    """
    batch, length = (int(n) for n in hidden.shape)
    if batch < 2 or length < 2 or not bool(hidden[:, 0].all()):
        return None  # some item shows its first key: not the mirror image of right padding
    counts = hidden.sum(-1)
    prefix = torch.arange(length, device=hidden.device) < counts[:, None]
    if not bool(hidden.eq(prefix).all()) or bool(counts.eq(length).any()):
        return None  # not a prefix in every item, or an item hidden whole (AW203)
    lengths = [int(n) for n in counts.tolist()]
    if keys is not None:
        _LOCAL.values_read = True  # what was seen rests on the keys too, not only on the mask
        keys = keys()
    if isinstance(keys, Tensor) and keys.dim() == 3 and tuple(keys.shape[:2]) == (batch, length):
        items = [(b, n) for b, n in enumerate(lengths[:64]) if n > 1]
        alike = [bool(keys[b, :n].eq(keys[b, :1]).all()) for b, n in items]
        if alike and all(alike):
            return None
        content = "; the hidden keys are not one repeated vector, as padding is"
    else:
        content = ""
    shown = ", ".join(f"{n} of {length} in item {b}" for b, n in enumerate(lengths[:4]))
    shown += ", …" if batch > 4 else ""
    return _Seen(
        "AW214",
        api,
        f"{_describe(what, mask)} hides the first keys of every batch item ({shown}) and lets "
        f"the last ones through{content}",
        rows,
    )


def _shifted_integers(mask: Tensor) -> tuple[float, float, list[int], int] | None:
    """AW220: a mask of exactly two values, integers one apart, neither above 0.

    ``-m`` or ``m - 1`` of a 0/1 mask gives -1 and 0, ``~m`` of an integer one -2 and -1; no
    bias has that form (an ALiBi or relative-position bias has fractional or many values).

    >>> _shifted_integers((~torch.tensor([[1, 1, 0]])).float())[:2]
    (-2.0, -1.0)
    >>> _shifted_integers(torch.tensor([[0.0, -0.5, -1.0]])) is None
    True
    """
    if mask.numel() < 2 or not mask.is_floating_point():
        return None
    low, high = float(mask.amin()), float(mask.amax())  # linear, as the other checks
    if not (high <= 0 and high - low == 1 and low == int(low)):
        return None
    if not bool((mask.eq(low) | mask.eq(high)).all()):
        return None
    index, count = _first(mask.eq(low))
    return low, high, index, count


def _additive(mask: Tensor, query_dtype: torch.dtype, what: str, api: str) -> list[_Seen]:
    """AW204 (positive), AW205 (NaN, +inf), AW220 (two integers) and AW206 (overflow)."""
    found: list[_Seen] = []
    rows: tuple[str, ...] = (
        (apis.SDPA.claim("attn_mask.float"),)
        if api == _SDPA
        else (apis.MHA.claim("attn_mask.float"),)
    )
    if what == "key_padding_mask":
        rows = (apis.MHA.claim("key_padding_mask.float"),)
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
    # Positive entries alone prove nothing: a T5 or relative-position bias passed as attn_mask
    # is positive in places by design.  A mask of only 0.0 and 1.0 is a Boolean one turned float.
    ones = mask.eq(1)
    if bool(ones.any()) and bool((mask.eq(0) | ones | mask.eq(float("-inf"))).all()):
        index, count = _first(ones)
        found.append(
            _Seen(
                "AW204",
                api,
                f"{_describe(what, mask)} holds only 0.0 and 1.0"
                + (" (and -inf)" if bool(mask.eq(float("-inf")).any()) else "")
                + f": a Boolean mask turned float; {count} entries of 1.0, first at index "
                f"{tuple(index)}",
                rows,
            )
        )
    shifted = _shifted_integers(mask)
    if shifted is not None:
        low, high, index, count = shifted
        found.append(
            _Seen(
                "AW220",
                api,
                f"{_describe(what, mask)} holds only {low:g} and {high:g} ({count} entries of "
                f"{low:g}, first at index {tuple(index)}): a 0/1 mask turned into integers one "
                f"apart, so the keys at {low:g} keep e^-1 ≈ 0.37 of the others' weight and no "
                "key is masked",
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
                        (
                            apis.SDPA.claim("attn_mask.float"),
                            apis.SDPA.claim("attn_mask.float32.low_precision"),
                        ),
                    )
                )
    return found


# -- one check per function the mode sees ---------------------------------------------------------


def _arg(args: Sequence[Any], kwargs: Mapping[str, Any], index: int, name: str) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else None


def _given(args: Sequence[Any], kwargs: Mapping[str, Any], argument: apis.Argument) -> Any:
    """An attention API's argument (a row of ``apis.py``) in a call: by keyword, else position."""
    if argument.keyword in kwargs:
        return kwargs[argument.keyword]
    position = argument.position
    return args[position] if position is not None and len(args) > position else None


def _causal_bias(mask: Any) -> bool:
    """Whether ``mask`` is a ``torch.nn.attention.bias.CausalBias`` (``causal_lower_right``).

    Its own storage is never written (uninitialised memory): what it stands for is the Boolean
    triangle it materialises, and only that may be read.
    """
    if type(mask) is Tensor:  # the common case, at the cost of one comparison
        return False
    bias = sys.modules.get("torch.nn.attention.bias")
    kind = getattr(bias, "CausalBias", None)
    return kind is not None and isinstance(mask, kind)


def _check_sdpa(args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int) -> list[_Seen]:
    query, key = _given(args, kwargs, _S["query"]), _given(args, kwargs, _S["key"])
    mask = _given(args, kwargs, _S["attn_mask"])
    if _causal_bias(mask):
        mask = mask._materialize(query.device)  # [L, S], True = may attend
    is_causal = bool(_given(args, kwargs, _S["is_causal"]))
    length_q, length_k = int(query.shape[-2]), int(key.shape[-2])
    found: list[_Seen] = []
    if is_causal and length_q != length_k:
        found.append(
            _Seen(
                "AW207",
                _SDPA,
                f"is_causal=True with query {_shape(query)} and key {_shape(key)}: "
                f"L = {length_q} queries, S = {length_k} keys",
                (apis.SDPA.claim("is_causal.alignment"), apis.SDPA.claim("is_causal.decode_step")),
            )
        )
    if not isinstance(mask, Tensor) or mask.numel() == 0:
        return found
    names = _names(query.dim(), mask.dim())
    # the common case in four reads: every slice lets some query see itself (so it is not
    # inverted) and every row keeps a key (so none is empty); padded masks included
    square = mask.dtype == torch.bool and length_q == length_k and mask.dim() >= 2
    if square and bool(mask.diagonal(0, -2, -1).any(-1).all()) and bool(mask.any(-1).all()):
        return found
    if mask.dtype == torch.bool:
        allowed, fully, padding = (
            mask,
            apis.SDPA.claim("fully_masked_row"),
            (apis.SDPA.claim("attn_mask.bool"),),
        )
    elif mask.is_floating_point():
        found.extend(_additive(mask, query.dtype, "attn_mask", _SDPA))
        effective = mask.to(query.dtype) if query.dtype.is_floating_point else mask
        allowed = effective.ne(float("-inf"))
        fully, padding = (
            apis.SDPA.claim("fully_masked_row.additive"),
            (apis.SDPA.claim("attn_mask.float"),),
        )
    else:
        return found
    inverted = _inverted(allowed, length_q, length_k, "attn_mask", mask, names)
    if inverted is not None:
        return [*found, _Seen("AW201", _SDPA, inverted, (apis.SDPA.claim("attn_mask.bool"),))]
    corner = _top_left(allowed, _describe("attn_mask", mask), _SDPA)
    if corner is not None:
        return [*found, corner]
    empty = _empty_rows(
        allowed,
        "attn_mask",
        mask,
        names,
        api=_SDPA,
        padding_rows=(*padding, fully),
        row_rows=(fully,),
        returns_row=fully,
    )
    if not empty and mask.dtype == torch.bool and _padding_shaped(mask, query):
        hidden = ~mask.reshape(mask.shape[0], mask.shape[-1])
        reversed_ = _reversed_padding(
            hidden, lambda: key[:, 0] if key.dim() == 4 else key, "attn_mask", mask, _SDPA, padding
        )  # one head's keys: [B, S, E]
        return [*found, reversed_] if reversed_ is not None else found
    if not empty and mask.is_floating_point():
        # a row of finfo.min everywhere is masked whole too, but gives uniform weights
        # (every key, masked ones included), not what the table's -inf rows return
        dtype = query.dtype if query.dtype.is_floating_point else mask.dtype
        low = mask.le(torch.finfo(dtype).min / 2)
        if bool(low.any()):
            empty = _empty_rows(
                allowed & ~low,
                "attn_mask (entries at the dtype's minimum counted as masked)",
                mask,
                names,
                api=_SDPA,
                padding_rows=(apis.SDPA.claim("attn_mask.float"),),
                row_rows=(apis.SDPA.claim("attn_mask.float"),),
                returns_row=None,
            )
    found.extend(empty)
    return found


def _padding_shaped(mask: Tensor, query: Tensor) -> bool:
    """A mask ``[B, 1, 1, S]`` (or ``[B, 1, S]`` for 3-D inputs): one row of keys per item."""
    return (
        mask.dim() == query.dim() >= 3
        and mask.shape[0] == query.shape[0]
        and all(size == 1 for size in mask.shape[1:-1])
    )


def _forbidden_to_allowed(mask: Tensor) -> Tensor:
    """``nn.MultiheadAttention``'s masks: Boolean True = masked out, or additive (-inf = out)."""
    return ~mask if mask.dtype == torch.bool else mask.ne(float("-inf"))


def _tiled_against_the_heads(
    allowed: Tensor, batch: int, heads: int, mask: Tensor, api: str, row: str
) -> _Seen | None:
    """AW219: a ``[B·H, L, S]`` mask whose heads agree only when read head by head.

    The module reads entry ``b·H + h`` as item b's head h.  A mask of per-item masks tiled
    with ``repeat(H, 1, 1)`` holds item b at ``h·B + b``: read as the module reads it, an
    item's heads then differ, while read head by head they agree.  Masks that differ per head
    on purpose agree neither way, and are left alone; so are masks that agree both ways.

    >>> items = torch.tensor([[True, True, False], [True, False, False]])[:, None, :]  # [B, 1, S]
    >>> tiled = items.expand(2, 3, 3).repeat(2, 1, 1)          # [B·H, L, S], head by head
    >>> _tiled_against_the_heads(tiled, 2, 2, tiled, "MHA", "row").code
    'AW219'
    >>> right = items.expand(2, 3, 3).repeat_interleave(2, dim=0)
    >>> _tiled_against_the_heads(right, 2, 2, right, "MHA", "row") is None
    True
    """
    if batch < 2 or heads < 2:
        return None
    length_q, length_k = int(allowed.shape[1]), int(allowed.shape[2])
    read = allowed.view(batch, heads, length_q, length_k)  # as the module reads it
    written = allowed.view(heads, batch, length_q, length_k)  # as repeat() lays it out
    if bool((read == read[:, :1]).all()) or not bool((written == written[:1]).all()):
        return None
    first = next(b for b in range(batch) if not bool((read[b] == read[b, :1]).all()))
    seen = (
        f"{_describe('attn_mask', mask)} for {batch} batch items of {heads} heads: read as the "
        f"module reads it (entry b·{heads} + h), item {first}'s heads differ, while read head "
        f"by head (entry h·{batch} + b) they agree: the per-item masks were tiled head by head"
    )
    return _Seen("AW219", api, seen, (row,))


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
    keys: Callable[[], Any] | None = None,
) -> list[_Seen]:
    """The checks shared by the module's ordinary and fused paths (masks in its convention).

    ``attn_mask`` is ``[L, S]``, ``[B·H, L, S]`` or ``[B, H, L, S]``; ``padding`` is ``[B, S]``;
    ``keys``, where at hand, gives the key input ``[B, S, E]``.
    """
    found: list[_Seen] = []
    hidden: frozenset[int] = frozenset()
    attn_row, padding_row = rows
    fully_rows = (returns_row,) if returns_row else ()
    if padding is not None and padding.numel():
        if padding.is_floating_point():
            found.extend(_additive(padding, query.dtype, "key_padding_mask", api))
        if padding.dim() == 2:
            bool_padding = padding.dtype == torch.bool
            hides = padding.all(-1) if bool_padding else padding.eq(float("-inf")).all(-1)
            if bool(hides.any()):
                hidden = frozenset(int(i) for i in hides.nonzero().flatten().tolist())
                found.extend(
                    _empty_rows(
                        _forbidden_to_allowed(padding)[:, None, :],
                        "key_padding_mask",
                        padding,
                        ("batch item", "query", "key"),
                        api=api,
                        padding_rows=(padding_row, *fully_rows),
                        row_rows=fully_rows,
                        returns_row=returns_row,
                    )
                )
            elif bool_padding:
                reversed_ = _reversed_padding(
                    padding, keys, "key_padding_mask", padding, api, (padding_row,)
                )
                if reversed_ is not None:
                    found.append(reversed_)
        elif not bool(_forbidden_to_allowed(padding).any()):
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
        tiled = _tiled_against_the_heads(allowed, batch, heads, attn_mask, api, attn_row)
        if tiled is not None:
            return [*found, tiled]
        allowed = allowed.view(batch, heads, length_q, length_k)
    names = ("batch item", "head", "query", "key")[-allowed.dim() :]
    inverted = _inverted(allowed, length_q, length_k, "attn_mask", attn_mask, names)
    if inverted is not None:
        return [*found, _Seen("AW201", api, inverted, (attn_row,))]
    if padding is not None and padding.numel() and padding.dim() == 2 and allowed.dim() >= 2:
        padding_allowed = _forbidden_to_allowed(padding)[:, None, None, :]
        allowed = (allowed if allowed.dim() == 4 else allowed[None, None]) & padding_allowed
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
    query, key = _given(args, kwargs, _F["query"]), _given(args, kwargs, _F["key"])
    heads = int(_given(args, kwargs, _F["num_heads"]))
    need_weights = _given(args, kwargs, _F["need_weights"])
    need_weights = True if need_weights is None else bool(need_weights)
    batched = query.dim() == 3  # [L, B, E]: this function is sequence-first
    returns = apis.MHA.claim(
        "fully_masked_row.need_weights_" + ("true" if need_weights else "false")
    )
    return _mha_masks(
        _MHA,
        query,
        int(query.shape[1]) if batched else None,
        int(query.shape[0]),
        int(key.shape[0]),
        heads,
        _origin(_given(args, kwargs, _F["attn_mask"])),  # the caller's mask, not torch's float copy
        _origin(_given(args, kwargs, _F["key_padding_mask"])),
        rows=(apis.MHA.claim("attn_mask.bool"), apis.MHA.claim("key_padding_mask.bool")),
        returns_row=returns,
        keys=(lambda: key.transpose(0, 1)) if batched and key.dim() == 3 else None,
    )


def _fused(
    api: str, src: Tensor, key: Tensor, heads: int, mask: Any, mask_type: Any, **rows: Any
) -> list[_Seen]:
    """The fused paths' one merged mask: ``mask_type`` 1 is ``[B, S]`` padding, else attention."""
    if not isinstance(mask, Tensor):
        return []
    mask = _origin(mask)  # the caller's mask where torch passes its float copy
    batch, length_q, length_k = int(src.shape[0]), int(src.shape[1]), int(key.shape[1])
    if mask_type == 1 or (mask.dim() == 2 and mask.shape[0] == batch and length_q != batch):
        keys = lambda: key  # noqa: E731 (read only where the content decides)
        return _mha_masks(api, src, batch, length_q, length_k, heads, None, mask, keys=keys, **rows)
    return _mha_masks(api, src, batch, length_q, length_k, heads, mask, None, **rows)


def _check_native_mha(
    args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int
) -> list[_Seen]:
    return _fused(
        _MHA,
        args[apis.NATIVE_MHA.position("query")],
        args[apis.NATIVE_MHA.position("key")],
        int(args[apis.NATIVE_MHA.position("num_head")]),
        _given(args, kwargs, _NATIVE["mask"]),
        _given(args, kwargs, _NATIVE["mask_type"]),
        rows=(apis.MHA.claim("attn_mask.bool"), apis.MHA.claim("key_padding_mask.bool")),
        returns_row=apis.MHA.claim("fully_masked_row.fast_path"),
    )


def _check_encoder_layer(
    args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int
) -> list[_Seen]:
    padding_row = apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool.fast_path")
    source = args[apis.TRANSFORMER_ENCODER_LAYER_FWD.position("src")]
    return _fused(
        _ENCODER,
        source,
        source,
        int(args[apis.TRANSFORMER_ENCODER_LAYER_FWD.position("num_heads")]),
        _given(args, kwargs, _LAYER["mask"]),
        _given(args, kwargs, _LAYER["mask_type"]),
        rows=(apis.MHA.claim("attn_mask.bool"), padding_row),
        returns_row=None,
    )


def _check_nested(args: Sequence[Any], kwargs: Mapping[str, Any], dense_limit: int) -> list[_Seen]:
    # the encoder passes src_key_padding_mask.logical_not(): True = a real token
    keep = _given(args, kwargs, _NESTED["mask"])
    if not isinstance(keep, Tensor) or keep.dim() != 2:
        return []
    if bool(keep.any(-1).all()):
        if bool(keep[:, 0].any()):
            return []  # some item keeps its first key: not right padding read backwards
        padding = ~keep
        reversed_ = _reversed_padding(
            padding,
            lambda: _given(args, kwargs, _NESTED["t"]),
            "src_key_padding_mask",
            padding,
            _ENCODER_STACK,
            (apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool.fast_path"),),
        )
        return [reversed_] if reversed_ is not None else []
    items = [int(i) for i in (~keep.any(-1)).nonzero().flatten().tolist()]
    noun = "item" if len(items) == 1 else "items"
    return [
        _Seen(
            "AW203",
            _ENCODER_STACK,
            f"src_key_padding_mask {_shape(keep)} hides every key of batch {noun} "
            f"{', '.join(str(i) for i in items[:8])}{', …' if len(items) > 8 else ''}",
            (apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool.fast_path"),),
        )
    ]


def _hidden_sdpa(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Tensor | None:
    """The keys ``attn_mask`` hides from every query (``[..., S]``), where it hides some."""
    mask = _given(args, kwargs, _S["attn_mask"])
    if _causal_bias(mask):
        mask = mask._materialize(_given(args, kwargs, _S["query"]).device)  # [L, S], True = allowed
    if not isinstance(mask, Tensor) or mask.dim() < 2 or mask.numel() == 0:
        return None
    if mask.dtype == torch.bool:
        seen = mask.any(-2)
    elif mask.is_floating_point():
        seen = mask.gt(_lowest(mask.dtype) / 2).any(-2)  # not -inf, nor the minimum of a dtype
    else:
        return None
    return None if bool(seen.all()) else ~seen


def _hidden_mha(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Tensor | None:
    """The keys ``key_padding_mask`` hides (``[B, S]``), where it hides some."""
    padding = _origin(_given(args, kwargs, _F["key_padding_mask"]))
    if not isinstance(padding, Tensor) or padding.dim() != 2 or padding.numel() == 0:
        return None
    if padding.dtype == torch.bool:
        hidden = padding
    elif padding.is_floating_point():
        hidden = padding.le(_lowest(padding.dtype) / 2)
    else:
        return None
    return hidden if bool(hidden.any()) else None


_HIDDEN_SDPA = _function(apis.SDPA)
_HIDDEN: dict[Any, Callable[[Sequence[Any], Mapping[str, Any]], Tensor | None]] = {
    _HIDDEN_SDPA: _hidden_sdpa,
    _MHA_FORWARD: _hidden_mha,
}


def _check_hidden_keys(
    original: Any, args: Sequence[Any], kwargs: Mapping[str, Any], out: Any
) -> list[_Seen]:
    """AW215, after a call whose masks were read: did a key they hide spoil the output.

    One read of the output (its sum); the masks, keys and values are read only when it is not
    finite.
    """
    result = out[0] if isinstance(out, tuple) else out
    if not isinstance(result, Tensor) or not result.is_floating_point() or result.numel() == 0:
        return []
    if math.isfinite(float(result.sum())):
        return []
    hidden = _HIDDEN[original](args, kwargs)
    if hidden is None:
        return []
    sdpa = original is _HIDDEN_SDPA  # the function itself: F's attribute is the wrapper now
    if sdpa:
        key, value = _given(args, kwargs, _S["key"]), _given(args, kwargs, _S["value"])
        mask = _given(args, kwargs, _S["attn_mask"])
        mask = mask._materialize(key.device) if _causal_bias(mask) else mask
        api, what = _SDPA, _S["attn_mask"].keyword
    else:
        key, value = _given(args, kwargs, _F["key"]), _given(args, kwargs, _F["value"])
        mask = _origin(_given(args, kwargs, _F["key_padding_mask"]))
        api, what = _MHA, _F["key_padding_mask"].keyword
    for name, tensor in (("key", key), ("value", value)):
        if not isinstance(tensor, Tensor) or tensor.dim() < 2:
            continue
        spoiled = ~tensor.isfinite().all(-1)  # [..., S]
        if not sdpa:  # the module's own layout: [S, B, E], or [S, E] unbatched
            spoiled = spoiled.transpose(0, 1) if spoiled.dim() == 2 else spoiled[None]
        try:
            hits = spoiled & hidden
        except RuntimeError:  # shapes that do not line up (grouped heads): nothing to say
            continue
        if not bool(hits.any()):
            continue
        index, count = _first(hits)
        query = _given(args, kwargs, (_S if sdpa else _F)["query"])
        four = sdpa and isinstance(query, Tensor) and query.dim() >= 4
        names = (("batch item", "head", "key") if four else ("batch item", "key"))[-hits.dim() :]
        return [
            _Seen(
                "AW215",
                api,
                f"{name} {_shape(tensor)} holds NaN or inf at {_where(names, index)}"
                f"{_more(count, 'keys')}, which {_describe(what, mask)} hides from every query; "
                f"the output {_shape(result)} holds {int(result.isnan().sum())} NaN",
                RULES["AW215"].rows,
            )
        ]
    return []


_CHECKS: dict[Any, Callable[[Sequence[Any], Mapping[str, Any], int], list[_Seen]]] = {
    _function(api): check
    for api, check in zip(
        _ENTRY_POINTS,
        (_check_sdpa, _check_mha_forward, _check_native_mha, _check_encoder_layer, _check_nested),
        strict=True,
    )
}


def _check_block_mask(block_mask: Any, dense_limit: int) -> list[_Seen]:
    """flex_attention: query blocks with no key block; densely (mask_mod) when small enough."""
    from torch.nn.attention.flex_attention import create_mask

    length_q, length_k = (int(n) for n in block_mask.seq_lengths)
    shape = tuple(int(n) for n in block_mask.shape)
    names = ("batch item", "head", "query", "key")
    what = f"block_mask {list(shape)} (mask_mod {getattr(block_mask.mask_mod, '__name__', '?')})"
    fully = apis.FLEX_ATTENTION.claim("fully_masked_row")
    if shape[0] * shape[1] * length_q * length_k <= dense_limit:
        allowed = create_mask(block_mask.mask_mod, shape[0], shape[1], length_q, length_k,
                              device=block_mask.kv_num_blocks.device)  # fmt: skip
        inverted = _inverted(allowed, length_q, length_k, "block_mask", allowed, names)
        if inverted is not None:
            seen = what + inverted.removeprefix(_describe("block_mask", allowed))
            return [_Seen("AW201", _FLEX, seen, (apis.CREATE_BLOCK_MASK.claim("mask_mod"),))]
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


# -- the softmax of attention scores, and the masked fills that lead to it -----------------------
#
# Hand-written attention computes q @ kᵀ, fills or adds a mask and calls a softmax.  The watch
# sees the softmax (torch.softmax, Tensor.softmax, and so F.softmax and nn.Softmax; the same for
# log_softmax) and, to know which entries were masked and with what, the masked fills whose
# result the softmax receives (masked_fill, masked_fill_, torch.where with a scalar) and the
# additions or subtractions of a smaller tensor (+, +=, add, torch.add, -, -=, sub, torch.sub).  An
# additive mask is also seen through its values at the softmax: rows of -inf, NaN.
#
# What a mask says against scores of one shape (which rows it fills whole, which axis it varies
# along) is read once per mask; each softmax call then reads its scores and its weights once
# each (their minimum and maximum), and goes through the scores row by row only when those show
# NaN or entries no known mask explains.

_SOFTMAX = "torch.softmax"

# id(filled tensor) -> (weak reference, Boolean mask of the filled entries or the where-condition,
# whether the mask is a where-condition (True = kept), the fill value (None: a tensor was added),
# the tensor's version, the sign the added tensor was added with (-1: subtracted))
_FILLS: dict[int, tuple[Any, ...]] = {}

_WEAK_WEIGHT = 1e-3
"""A masked entry whose softmax weight is above this was not masked (AW210)."""


@functools.cache
def _lowest(dtype: torch.dtype) -> float:
    """``torch.finfo(dtype).min``, read once per dtype."""
    return float(torch.finfo(dtype).min)


def _scalar(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, Tensor) and value.dim() == 0 and value.is_floating_point():
        return float(value)
    return None


def _record_fill(out: Any, mask: Any, kept: bool, value: Any, source: Any) -> None:
    if not isinstance(out, Tensor) or not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        return
    constant = _scalar(value)
    if constant is None or not out.is_floating_point():
        return
    try:
        version = out._version
    except RuntimeError:  # an inference tensor: no version counter, nothing to follow
        return
    _remember(_FILLS, out, (mask, kept, constant, version, 1, _masked_before(source)))


def _masked_before(source: Any) -> bool:
    """Whether ``source`` was itself filled or had a tensor added: masks stacked on the scores."""
    return _looked_up(_FILLS, source) is not None


# id(mask) -> (weak reference, condition, value where True, value where False, version): a mask
# built as torch.where(condition, 0.0, min), as Hugging Face builds its additive masks
_VALUES: dict[int, tuple[Any, ...]] = {}


def _record_values(out: Any, condition: Any, high: float, low: float) -> None:
    if not isinstance(out, Tensor) or not isinstance(condition, Tensor):
        return
    if condition.dtype != torch.bool or not out.is_floating_point():
        return
    with contextlib.suppress(RuntimeError):  # an inference tensor: no version counter
        _remember(_VALUES, out, (condition, high, low, out._version))


def _known_values(mask: Tensor, sign: int) -> tuple[tuple[Tensor, bool, float] | None, bool] | None:
    """What :func:`_facts` reads, for a mask whose two values are known, without reading it."""
    entry = _looked_up(_VALUES, mask)
    if entry is None:
        return None
    _, condition, high, low, version = entry
    try:
        if mask._version != version:
            return None
    except RuntimeError:
        return None
    high, low = sign * high, sign * low
    if high == 0.0 and low < 0.0:
        return (condition, True, low), False  # condition True = kept
    if low == 0.0 and high < 0.0:
        return (condition, False, high), False  # condition True = filled
    return None, sign > 0 and {high, low} == {0.0, 1.0}


def _masking(scores: Tensor) -> tuple[tuple[Tensor, bool, float] | None, Tensor | None, bool]:
    """What made ``scores``, while they are unchanged: (the fill, a 0/1 mask added, stacked).

    The fill is (mask, whether it is a where-condition, the constant), also for a mask added;
    the second is the tensor added where it holds only 0.0 and 1.0 (a Boolean mask turned
    float); stacked says whether the scores it went onto were masked already (or nothing is
    known of them).
    """
    entry = _looked_up(_FILLS, scores)
    if entry is None:
        return None, None, True
    _, mask, kept, constant, version, sign, stacked = entry
    try:
        if scores._version != version:  # changed in place since: what was filled is unknown
            return None, None, True
    except RuntimeError:
        return None, None, True
    if constant is not None:
        return (mask, kept, constant), None, stacked
    fill, zero_one = _facts(mask, sign)  # an addition: the mask is the smaller operand
    return fill, mask if zero_one else None, stacked


# id(added mask) -> (weak reference, version, its reading as a fill, whether it is 0/1 only):
# every layer of a model adds the same mask, which is read once; a subtracted one is read negated
_FACTS: dict[int, tuple[Any, ...]] = {}
_FACTS_SUBTRACTED: dict[int, tuple[Any, ...]] = {}


def _facts(mask: Tensor, sign: int = 1) -> tuple[tuple[Tensor, bool, float] | None, bool]:
    table = _FACTS if sign > 0 else _FACTS_SUBTRACTED
    entry = _looked_up(table, mask)
    try:
        version = mask._version
    except RuntimeError:
        version = None
    if entry is not None and version is not None and entry[1] == version:
        return entry[2], entry[3]
    known = _known_values(mask, sign)
    if known is not None:
        found = known
    elif sign > 0:
        fill = _additive_fill(mask)
        found = (fill, fill is None and _boolean_added(mask))  # a 0/1 mask is never a fill
    else:  # scores - m: m's largest entries are the masked ones
        found = (_additive_fill(-mask), False)
    if version is not None:
        _remember(table, mask, (version, *found))
    return found


def _additive_fill(mask: Tensor) -> tuple[Tensor, bool, float] | None:
    """An added mask read as a fill: 0 where allowed, its one lowest value where masked.

    Anything else (a position bias: positive values, or more than one negative level besides
    -inf) is not read as a mask: unknown, so silent.
    """
    low, high = (float(bound) for bound in torch.aminmax(mask))
    if high != 0.0 or not low < 0.0:
        return None
    masked = mask.eq(low)
    if not bool((masked | mask.eq(0)).all()):
        return None
    return masked, False, low


def _boolean_added(mask: Tensor) -> bool:
    """An added mask of only 0.0 and 1.0 (and -inf): a Boolean mask turned float."""
    ones = mask.eq(1)
    return bool(ones.any()) and bool((ones | mask.eq(0) | mask.eq(float("-inf"))).all())


def _smaller_operand(self: Any, other: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The operand added to (or subtracted from) a larger tensor, as a mask is, or None.

    Most additions (residuals) are of equal shapes, or of a number: they return None at once.
    An ``alpha`` other than 1 scales the operand: not followed.
    """
    if not isinstance(other, Tensor) or not isinstance(self, Tensor):
        return None
    if args or kwargs.get("alpha", 1) != 1:
        return None
    smaller = other if other.numel() < self.numel() else self
    if smaller.dim() < 2 or smaller.numel() >= max(self.numel(), other.numel()):
        return None
    return smaller if smaller.is_floating_point() else None


def _record_addition(out: Any, smaller: Tensor, sign: int, source: Any) -> None:
    if torch.compiler.is_compiling() or _active() is None or not isinstance(out, Tensor):
        return
    stacked = _masked_before(source)
    with contextlib.suppress(RuntimeError):  # an inference tensor: no version
        _remember(_FILLS, out, (smaller, False, None, out._version, sign, stacked))
    _follow_product(source, out)


def _add_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    """``Tensor.__add__`` (and ``__radd__``, ``add``, ``torch.add``): remember a mask added."""

    @functools.wraps(original)
    def add(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, other, *args, **kwargs)
        if isinstance(other, Tensor) and isinstance(self, Tensor) and other.numel() != self.numel():
            smaller = _smaller_operand(self, other, args, kwargs)
            if smaller is not None:
                _record_addition(out, smaller, 1, other if smaller is self else self)
        return out

    return add


def _right_operand_watched(original: Callable[..., Any], sign: int) -> Callable[..., Any]:
    """``scores - m`` (``sign`` -1: it adds ``-m``), ``scores += m`` and ``scores -= m``.

    Only the right operand is a mask's use (``m - scores`` is none); in place, the scores keep
    their identity and move to a new version.
    """

    @functools.wraps(original)
    def watched(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, other, *args, **kwargs)
        if isinstance(other, Tensor) and isinstance(self, Tensor) and other.numel() != self.numel():
            smaller = _smaller_operand(self, other, args, kwargs)
            if smaller is not None and smaller is other:
                _record_addition(out, smaller, sign, self)
        return out

    return watched


def _masked_fill_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def masked_fill(self: Any, mask: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, mask, value, *args, **kwargs)
        if not torch.compiler.is_compiling() and _active() is not None:
            _record_fill(out, mask, False, value, self)
            _follow_product(self, out)
        return out

    return masked_fill


def _where_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def where(condition: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(condition, *args, **kwargs)
        if len(args) != 2 or kwargs or torch.compiler.is_compiling() or _active() is None:
            return out
        kept, other = args
        high, low = _scalar(kept), _scalar(other)
        if high is not None and low is not None:  # where(keep, 0.0, min): a mask, values known
            _record_values(out, condition, high, low)
        elif low is not None:  # where(keep, scores, fill)
            _record_fill(out, condition, True, other, kept)
            _follow_product(kept, out)
        elif high is not None:  # where(masked, fill, scores)
            _record_fill(out, condition, False, kept, other)
            _follow_product(other, out)
        return out

    return where


# -- scores known to be q @ kᵀ: the product, and its scaled, filled or masked copies --------------
#
# id(tensor) -> (weak reference,): a batched product a @ b whose right operand is a transposed
# view ([..., L, D] @ [..., D, S], as q @ k.transpose(-2, -1) is), so its last axis holds the
# keys and the one before it the queries; a copy scaled by a number, filled or with a mask added
# is followed.

_PRODUCTS: dict[int, tuple[Any, ...]] = {}


def _follow_product(source: Any, out: Any) -> None:
    if _PRODUCTS and isinstance(out, Tensor) and _looked_up(_PRODUCTS, source) is not None:
        _remember(_PRODUCTS, out, ())


def _matmul_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.matmul`` / ``@`` / ``torch.bmm``: remember a batched ``q @ k.transpose(-2, -1)``."""

    @functools.wraps(original)
    def matmul(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, other, *args, **kwargs)
        if (
            isinstance(other, Tensor)
            and isinstance(self, Tensor)
            and other.dim() >= 3
            and self.dim() >= 3
            and other.stride(-2) == 1
            and other.stride(-1) != 1
            and other.shape[-2] > 1
            and not torch.compiler.is_compiling()
            and isinstance(out, Tensor)
            and _active() is not None
        ):
            _remember(_PRODUCTS, out, ())
        return out

    return matmul


def _scaled_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    """``*`` / ``/`` (and ``torch.mul``, ``torch.div``): a product scaled by a number stays one."""

    @functools.wraps(original)
    def scaled(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, other, *args, **kwargs)
        if _PRODUCTS:
            if isinstance(other, Tensor) and other.numel() != 1:
                if not isinstance(self, (int, float)) and (
                    not isinstance(self, Tensor) or self.numel() != 1
                ):
                    return out
                self, other = other, self  # 0.125 * scores through torch.mul
            _follow_product(self, out)
        return out

    return scaled


def _rows_where(flags: Tensor, dim: int, scores: Tensor) -> str:
    """``batch item 1, head 0, query 2`` for the first True of ``flags`` (``dim`` reduced)."""
    index, count = _first(flags) if flags.dim() else ([], 1)
    if not index:
        place = "the row"
    elif dim == scores.dim() - 1 and scores.dim() <= 4:
        place = _where(_names(scores.dim(), scores.dim())[:-1], index)
    else:
        place = f"the row at {tuple(index)} along dim {dim}"
    return place + _more(count, "rows")


def _top_left(allowed: Tensor, what: str, api: str) -> _Seen | None:
    """AW213: ``allowed`` ``[..., L, S]`` with L < S is exactly the top-left causal triangle.

    Query i then sees keys 0..i only; with S - L keys cached before the L new queries, the
    triangle belongs at the bottom right (query i sees keys 0..S - L + i).
    """
    if allowed.dim() < 2:
        return None
    length_q, length_k = int(allowed.shape[-2]), int(allowed.shape[-1])
    if not 1 < length_q < length_k:
        return None
    top_left = torch.ones(length_q, length_k, dtype=torch.bool, device=allowed.device).tril()
    if not bool(allowed.eq(top_left).flatten(-2).all(-1).any()):
        return None
    return _Seen(
        "AW213",
        api,
        f"the mask {what} is the top-left causal triangle with L = {length_q} queries and "
        f"S = {length_k} keys: query 0 sees key 0 alone, and the last query misses "
        f"{length_k - length_q} keys",
        ("bias.causal_upper_left.alignment", "bias.causal_lower_right.alignment"),
    )


@dataclass(frozen=True)
class _FillFacts:
    """What a fill's mask says against scores of one shape and dtype, along one axis.

    ``found``: the finding the mask alone proves (AW211's axis, AW213's corner), if any;
    ``whole``: whether the mask fills some row whole (read for a finite fill only: a row of
    -inf shows in the weights, as NaN); ``partly``: the filled entries of the rows that keep a
    key (scores' shape), for a fill above the dtype's minimum only, whose weights AW210 reads.
    """

    found: _Seen | None
    whole: bool
    partly: Tensor | None


# id(mask) -> (weak reference, what it was read against, _FillFacts): the last reading of each mask
_FILL_FACTS: dict[int, tuple[Any, ...]] = {}


# (the mask's bytes, what it was read against) -> _FillFacts: a small mask built anew per call
# (~causal, ids == pad) is read once per value
_FILL_FACTS_BY_BYTES: dict[Any, _FillFacts] = {}


def _fill_facts(scores: Tensor, dim: int, fill: tuple[Tensor, bool, float]) -> _FillFacts:
    mask, kept, constant = fill
    content = _bytes_key(mask)
    if content is not None:
        read = (content, kept, constant, scores.shape, scores.dtype, dim)
        facts = _FILL_FACTS_BY_BYTES.get(read)
        if facts is None:
            facts = _read_fill(scores, dim, mask, kept, constant)
            if len(_FILL_FACTS_BY_BYTES) >= _CACHE_SIZE:
                _FILL_FACTS_BY_BYTES.clear()
            _FILL_FACTS_BY_BYTES[read] = facts
        return facts
    try:
        against = (mask._version, kept, constant, scores.shape, scores.dtype, dim)
    except RuntimeError:
        against = None
    entry = _looked_up(_FILL_FACTS, mask)
    if entry is not None and against is not None and entry[1] == against:
        return entry[2]  # type: ignore[no-any-return]
    facts = _read_fill(scores, dim, mask, kept, constant)
    if against is not None:
        _remember(_FILL_FACTS, mask, (against, facts))
    return facts


def _read_fill(scores: Tensor, dim: int, mask: Tensor, kept: bool, constant: float) -> _FillFacts:
    found = _axis(scores, dim, mask)
    last = scores.dim() - 1
    if found is None and dim == last and 1 < scores.shape[-2] < scores.shape[-1]:
        found = _top_left(mask if kept else ~mask, _shape(mask), _SOFTMAX)
    if found is not None:
        return _FillFacts(found, False, None)
    if constant == float("-inf"):
        return _FillFacts(None, False, None)  # a row of -inf is NaN in the weights
    at = dim - (scores.dim() - mask.dim())  # the softmax's axis in the mask, if it has it
    along = at >= 0 and mask.shape[at] > 1
    if kept:  # a where-condition: a row is filled whole where it keeps nothing
        whole = not bool(mask.any(at).all() if along else mask.all())
    else:  # broadcast along the row, a filled entry fills it whole
        whole = bool(mask.all(at).any() if along else mask.any())
    partly = None
    if constant > _lowest(scores.dtype) / 2:  # the minimum: nothing lies below it
        expanded = (~mask if kept else mask).expand_as(scores)
        partly = expanded & ~expanded.all(dim, keepdim=True)
        partly = partly if bool(partly.any()) else None
    return _FillFacts(None, whole, partly)


def _axis(scores: Tensor, dim: int, mask: Tensor) -> _Seen | None:
    """AW211: the mask varies along other axes but not along the softmax's."""
    offset = scores.dim() - mask.dim()
    size_here = mask.shape[dim - offset] if dim >= offset else 1
    if size_here != 1 or scores.shape[dim] == 1:
        return None
    axes = [n + offset for n, size in enumerate(mask.shape) if size > 1]
    if not axes or bool(mask.all()) or not bool(mask.any()):
        return None  # a constant mask says nothing about which axis holds the keys
    key_axis = axes[-1]
    return _Seen(
        "AW211",
        _SOFTMAX,
        f"softmax over dim {dim} (size {scores.shape[dim]}) of {_describe('scores', scores)}, "
        f"along which the mask {_shape(mask)} does not vary; the mask's key axis is dim "
        f"{key_axis} (size {scores.shape[key_axis]})",
        (apis.SDPA.claim("attn_mask.float"),),
    )


def _check_softmax(scores: Any, dim: Any, weights: Any, log: bool) -> list[_Seen]:
    """Every softmax rule, from the scores, the weights the call returned and the masks seen.

    The weights' maximum (and, unless one known mask made the scores, the scores' minimum),
    read once per call, decide whether any row can be NaN or masked whole; the masks' own
    findings are read once per mask (:func:`_fill_facts`).
    """
    if not isinstance(scores, Tensor) or not isinstance(dim, int) or scores.dim() == 0:
        return []
    if not scores.is_floating_point() or scores.numel() == 0:
        return []
    dim %= scores.dim()
    if scores.shape[dim] == 1 and dim != scores.dim() - 1 and scores.shape[-1] > 1:
        # every weight is 1: the softmax normalises nothing (a key axis of size 1 is the
        # last one, as at a decode step with one cached key, and is left alone)
        return [
            _Seen(
                "AW212",
                _SOFTMAX,
                f"softmax over dim {dim} of {_describe('scores', scores)}, which has size 1: "
                f"every weight is 1.0; the last axis (size {scores.shape[-1]}) is left "
                "unnormalised",
                (apis.SDPA.claim("attn_mask.float"),),
            )
        ]
    fill, added, stacked = _masking(scores)
    top = float(weights.max()) if isinstance(weights, Tensor) and weights.numel() else 0.0
    low: float | None = None
    if fill is not None and not stacked:
        # one mask on the scores, known: its fill explains their lowest entries, and a NaN
        # entering or a row of -inf shows in the weights
        if top != top and bool(scores.isnan().any()):
            return [_nan_scores(scores, dim)]
    else:
        low = float(scores.min())  # NaN where a NaN enters
        if low != low:
            return [_nan_scores(scores, dim)]
    if added is not None:
        return [
            _Seen(
                "AW204",
                _SOFTMAX,
                f"{_describe('the mask added to the scores', added)} holds only 0.0 and 1.0: "
                "a Boolean mask turned float, which masks nothing",
                (apis.SDPA.claim("attn_mask.float"),),
            )
        ]
    facts = _fill_facts(scores, dim, fill) if fill is not None else None
    if facts is not None and facts.found is not None:
        return [facts.found]  # the rows it masks whole follow from the axis: one finding, the cause
    minimum = _lowest(scores.dtype) / 2
    constant = fill[2] if fill is not None else None
    unexplained = top != top or (  # a row of -inf, or +inf: NaN weights
        low is not None
        and (
            (low == float("-inf") and (constant is None or constant > float("-inf")))
            or (low <= minimum and (constant is None or constant > minimum))
        )
    )
    if unexplained:
        found = _masked_rows(scores, dim, fill)
    elif fill is not None and facts is not None and facts.whole:
        mask, kept, constant = fill
        whole = (~mask if kept else mask).expand_as(scores).all(dim)
        found = [_filled_rows(scores, dim, whole, constant)]
    elif fill is not None and facts is not None and facts.partly is not None:
        found = _weak_fill(scores, weights, facts.partly, fill[2], log)
    else:
        found = []
    if found or top != top:
        return found
    query_axis = _query_axis(scores, dim)
    if query_axis is not None:
        return [query_axis]
    return _uniform(scores, dim, weights, log, top)


def _query_axis(scores: Tensor, dim: int) -> _Seen | None:
    """AW216: a softmax over the queries' axis of self-attention scores q @ kᵀ."""
    if scores.dim() < 3 or dim != scores.dim() - 2:
        return None
    length_q, length_k = int(scores.shape[-2]), int(scores.shape[-1])
    if length_q != length_k or length_q < 2 or _looked_up(_PRODUCTS, scores) is None:
        return None
    return _Seen(
        "AW216",
        _SOFTMAX,
        f"softmax over dim {dim} of {_describe('scores', scores)}, a product q @ kᵀ with "
        f"L = S = {length_q}: dim {dim} holds its queries, dim {scores.dim() - 1} its keys",
        RULES["AW216"].rows,
    )


def _uniform(scores: Tensor, dim: int, weights: Any, log: bool, top: float) -> list[_Seen]:
    """AW217: every row the softmax normalises holds one value, and the scores vary elsewhere.

    Read from the weights (their maximum is 1/n only if every row is uniform), then confirmed
    on the scores, exactly.
    """
    size = int(scores.shape[dim])
    uniform = -math.log(size) if log else 1.0 / size
    if size < 2 or top > uniform + 1e-3 * max(1.0, abs(uniform)):
        return []  # some row gives a weight above 1/n: not every row is uniform
    if not isinstance(weights, Tensor) or weights.shape != scores.shape:
        return []
    if top > uniform + 8 * torch.finfo(weights.dtype).eps * max(1.0, abs(uniform)):
        return []
    low, high = float(scores.min()), float(scores.max())  # the rare path: read them exactly
    if high == low:
        return []  # one value everywhere (zeros at initialisation): nothing to tell apart
    row_low, row_high = torch.aminmax(scores, dim=dim)
    if not bool(row_low.eq(row_high).all()):
        return []
    return [
        _Seen(
            "AW217",
            _SOFTMAX,
            f"softmax over dim {dim} (size {size}) of {_describe('scores', scores)}: every row "
            f"holds one value repeated, while the scores range from {low:.4g} to {high:.4g}, "
            f"so every weight is {1.0 / size:.4g}",
            RULES["AW217"].rows,
        )
    ]


def _nan_scores(scores: Tensor, dim: int) -> _Seen:
    """AW208, with the first row a NaN enters."""
    rows = scores.isnan().any(dim)
    return _Seen(
        "AW208",
        _SOFTMAX,
        f"{_describe('scores', scores)} holds {int(scores.isnan().sum())} NaN entries, first in "
        f"{_rows_where(rows, dim, scores)}: every weight of that row is NaN",
        RULES["AW208"].rows,
    )


def _filled_rows(scores: Tensor, dim: int, whole: Tensor, constant: float) -> _Seen:
    return _Seen(
        "AW209",
        _SOFTMAX,
        f"{_describe('scores', scores)}: {_rows_where(whole, dim, scores)} has every entry "
        f"filled with {constant:g}, so the softmax spreads that row evenly over every key",
        (apis.SDPA.claim("attn_mask.float"),),
    )


def _masked_rows(scores: Tensor, dim: int, fill: tuple[Tensor, bool, float] | None) -> list[_Seen]:
    """AW209 row by row: rows of -inf, rows filled whole, rows at the dtype's minimum."""
    top = scores.amax(dim)  # the row maxima: -inf where all are -inf
    lowest = float(top.min())
    if lowest == float("-inf"):
        return [
            _Seen(
                "AW209",
                _SOFTMAX,
                f"{_describe('scores', scores)}: {_rows_where(top.eq(float('-inf')), dim, scores)}"
                " has every entry -inf, so the softmax returns NaN there",
                ("softmax.all_neg_inf_row",),
            )
        ]
    if fill is not None and lowest <= fill[2]:  # else every row keeps a key
        mask, kept, constant = fill
        whole = (~mask if kept else mask).expand_as(scores).all(dim)
        if bool(whole.any()):
            return [_filled_rows(scores, dim, whole, constant)]
    minimum = torch.finfo(scores.dtype).min / 2
    if lowest <= minimum:
        return [
            _Seen(
                "AW209",
                _SOFTMAX,
                f"{_describe('scores', scores)}: {_rows_where(top.le(minimum), dim, scores)} has "
                f"every entry at most {minimum:.3g} (a mask's minimum), so the softmax spreads "
                "that row evenly over every key",
                (apis.SDPA.claim("attn_mask.float"),),
            )
        ]
    return []


def _weak_fill(
    scores: Tensor, weights: Any, partly: Tensor, constant: float, log: bool
) -> list[_Seen]:
    """AW210: a fill constant that left masked entries of a row that keeps a key a weight."""
    if not isinstance(weights, Tensor) or weights.shape != scores.shape:
        return []
    values = weights.exp() if log else weights
    kept_weight = torch.where(partly, values, 0)
    worst = kept_weight.amax()
    if float(worst) <= _WEAK_WEIGHT:
        return []
    flat = int((kept_weight == worst).flatten().nonzero()[0])
    at = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), scores.shape))
    return [
        _Seen(
            "AW210",
            _SOFTMAX,
            f"{_describe('scores', scores)} masked with {constant:g}: a masked entry keeps "
            f"weight {float(worst):.3g} (at {at})",
            (apis.SDPA.claim("attn_mask.float"),),
        )
    ]


def _softmax_watched(original: Callable[..., Any], log: bool) -> Callable[..., Any]:
    """``torch.softmax`` / ``Tensor.softmax`` (and the log versions), watched."""

    @functools.wraps(original)
    def softmax(scores: Any, *args: Any, **kwargs: Any) -> Any:
        owner = _active()
        if owner is None or torch.compiler.is_compiling() or not owner._sampled():
            return original(scores, *args, **kwargs)
        _LOCAL.busy = True
        try:
            weights = original(scores, *args, **kwargs)
        finally:
            _LOCAL.busy = False
        dim = args[0] if args else kwargs.get("dim")
        owner._run(lambda: _check_softmax(scores, dim, weights, log))
        return weights

    return softmax


def _softmax_targets() -> list[tuple[Any, str, Callable[[Any], Callable[..., Any]]]]:
    plain = functools.partial(_softmax_watched, log=False)
    log = functools.partial(_softmax_watched, log=True)
    subtracted = functools.partial(_right_operand_watched, sign=-1)
    return [
        (torch, "softmax", plain),
        (torch.Tensor, "softmax", plain),
        (torch, "log_softmax", log),
        (torch.Tensor, "log_softmax", log),
        (torch, "masked_fill", _masked_fill_watched),
        (torch.Tensor, "masked_fill", _masked_fill_watched),
        (torch.Tensor, "masked_fill_", _masked_fill_watched),
        (torch, "where", _where_watched),
        (torch.Tensor, "__add__", _add_watched),
        (torch.Tensor, "__radd__", _add_watched),
        (torch.Tensor, "add", _add_watched),
        (torch, "add", _add_watched),
        (torch.Tensor, "__sub__", subtracted),
        (torch.Tensor, "sub", subtracted),
        (torch, "sub", subtracted),
        # += and -=, not add_ / sub_: an optimizer's step calls add_ once per parameter
        (torch.Tensor, "__iadd__", functools.partial(_right_operand_watched, sign=1)),
        (torch.Tensor, "__isub__", subtracted),
        (torch, "matmul", _matmul_watched),
        (torch.Tensor, "matmul", _matmul_watched),
        (torch.Tensor, "__matmul__", _matmul_watched),
        (torch, "bmm", _matmul_watched),
        (torch.Tensor, "bmm", _matmul_watched),
        (torch.Tensor, "__mul__", _scaled_watched),
        (torch.Tensor, "__rmul__", _scaled_watched),
        (torch.Tensor, "__truediv__", _scaled_watched),
        (torch.Tensor, "mul", _scaled_watched),
        (torch.Tensor, "div", _scaled_watched),
        (torch, "mul", _scaled_watched),
        (torch, "div", _scaled_watched),
    ]


# -- where the watch sits: the entry points, replaced while a watch is open ----------------------
#
# A watch replaces a few functions of torch (the attention entry points, the softmaxes, the masked
# fills and F._canonical_mask) by wrappers while at least one watch is open, and puts them back
# when the last one closes.  Every other torch call runs exactly as unwatched: no function mode
# sees each operation, which is what kept the watch's cost per call to a few microseconds.

_LOCAL = threading.local()  # .stack: this thread's open watches; .busy: inside a checked call
_SHARED: list[Watch] = []  # watches opened with threads=True: they see every thread
_INSTALL_LOCK = threading.Lock()
_installed = 0
_SAVED: list[tuple[Any, str, Any]] = []  # (owner, attribute, original) while installed


def _active() -> Watch | None:
    """The watch that sees a call made now on this thread, or None."""
    local = _LOCAL.__dict__
    if local.get("busy"):
        return None
    stack = local.get("stack")
    if stack:
        return stack[-1]  # type: ignore[no-any-return]
    return _SHARED[-1] if _SHARED else None


# What a canonicalised mask came from: nn.MultiheadAttention and the Transformer layers turn a
# Boolean mask into a float one (0 / -inf) before the checked call; the finding names the user's.
_ORIGIN: dict[int, tuple[weakref.ref[Tensor], Tensor]] = {}


def _remember(table: dict[int, Any], tensor: Tensor, value: Any) -> None:
    key = id(tensor)

    def forget(ref: weakref.ref[Tensor], key: int = key) -> None:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]

    table[key] = (weakref.ref(tensor, forget), *value)


def _looked_up(table: dict[int, Any], tensor: Any) -> Any:
    entry = table.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry


def _origin(mask: Any) -> Any:
    """The mask the caller passed, where ``mask`` is torch's float copy of it."""
    entry = _looked_up(_ORIGIN, mask) if isinstance(mask, Tensor) else None
    return mask if entry is None else entry[1]


def _canonical_mask_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def canonical_mask(mask: Any, *args: Any, **kwargs: Any) -> Any:
        other = _arg(args, kwargs, 1, "other_type")
        if isinstance(mask, Tensor) and other is not None and mask.dtype != other:
            # torch warns here with stacklevel=2: name its caller, not this wrapper
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = original(mask, *args, **kwargs)
            for warning in caught:
                warnings.warn(warning.message, warning.category, stacklevel=2)
        else:
            out = original(mask, *args, **kwargs)
        if out is not mask and isinstance(out, Tensor) and _active() is not None:
            _remember(_ORIGIN, out, (_origin(mask),))
        return out

    return canonical_mask


# A mask on the CPU of at most this many bytes is known by its contents: a padding mask built
# anew for every batch (ids == pad) is read once per distinct value, not once per call.
_CONTENT_BYTES = 1 << 14
# id(mask) -> (weak reference, version, its key by bytes): a mask reused unchanged (a causal
# mask built once, the one mask every layer of a model receives) has its bytes read once
_BYTES: dict[int, tuple[Any, ...]] = {}


def _bytes_key(mask: Tensor) -> tuple[Any, ...] | None:
    """``("bytes", dtype, shape, bytes)`` of a small mask on the CPU, else None.

    A tensor reused unchanged (same identity and version) has its bytes read once.
    """
    try:
        version = mask._version
    except RuntimeError:  # an inference tensor: its bytes are read each time
        version = None
    known = _looked_up(_BYTES, mask)
    if known is not None and version is not None and known[1] == version:
        return known[2]  # type: ignore[no-any-return]
    if (
        mask.device.type != "cpu"
        or mask.numel() * mask.element_size() > _CONTENT_BYTES
        or mask.requires_grad
        or mask.layout is not torch.strided
    ):
        return None
    try:
        key = ("bytes", mask.dtype, mask.shape, mask.numpy().tobytes())
    except (TypeError, RuntimeError):  # bfloat16 has no NumPy twin
        return None
    if version is not None:
        _remember(_BYTES, mask, (version, key))
    return key


def _mask_key(mask: Any) -> Any:
    """What identifies a mask's contents: its bytes, or its identity and version.

    A small mask on the CPU is known by its bytes (the key then holds no identity); any other
    by its identity and version counter, valid while it is unchanged.
    """
    if mask is None or not isinstance(mask, Tensor):
        return mask if isinstance(mask, (int, float, bool)) or mask is None else id(mask)
    if _causal_bias(mask):  # known by what it stands for; its storage holds nothing
        bias: Any = mask
        return ("causal_bias", str(bias.variant), bias.seq_len_q, bias.seq_len_kv)
    mask = _origin(mask)
    known = _bytes_key(mask)
    if known is not None:
        return known
    return (id(mask), mask._version, mask.dtype, mask.shape)


def _tensors(*masks: Any) -> list[Tensor]:
    """The masks a call was given, as the caller passed them."""
    return [_origin(mask) for mask in masks if isinstance(mask, Tensor)]


def _by_identity(key: Any, mask: Any) -> list[Tensor]:
    """The mask whose identity the cache entry must check: none where it is known by its bytes."""
    if not isinstance(mask, Tensor) or (
        isinstance(key, tuple) and key[:1] in (("bytes",), ("causal_bias",))
    ):
        return []
    return [_origin(mask)]


def _meta(tensor: Any) -> Any:
    if not isinstance(tensor, Tensor):
        return None
    if tensor.is_nested:  # no .shape (it raises): the encoder's fused layers pass no mask then
        return ("nested", tensor.dim(), tensor.dtype)
    return (tensor.shape, tensor.dtype)


# a call's cache key, the masks known by identity, and every mask it was given (as passed)
_Keyed = tuple[Any, list[Tensor], list[Tensor]]


def _key_sdpa(args: Sequence[Any], kwargs: Mapping[str, Any]) -> _Keyed:
    mask = _given(args, kwargs, _S["attn_mask"])
    known = _mask_key(mask)
    key = (
        _meta(_given(args, kwargs, _S["query"])),
        _meta(_given(args, kwargs, _S["key"])),
        known,
        bool(_given(args, kwargs, _S["is_causal"])),
    )
    return key, _by_identity(known, mask), _tensors(mask)


def _key_mha(args: Sequence[Any], kwargs: Mapping[str, Any]) -> _Keyed:
    masks = [_given(args, kwargs, _F["attn_mask"]), _given(args, kwargs, _F["key_padding_mask"])]
    known = [_mask_key(m) for m in masks]
    key = (
        _meta(_given(args, kwargs, _F["query"])),
        _meta(_given(args, kwargs, _F["key"])),
        _given(args, kwargs, _F["num_heads"]),
        _given(args, kwargs, _F["need_weights"]),
        *known,
    )
    identity = [m for k, mask in zip(known, masks, strict=True) for m in _by_identity(k, mask)]
    return key, identity, _tensors(*masks)


def _key_fused(api: apis.Api, query: str, key: str | None, heads: str) -> Callable[..., _Keyed]:
    """The cache key of a fused path's call: its inputs' shapes, head count and merged mask."""
    mask_at, type_at = api.argument("mask"), api.argument("mask_type")
    query_at, heads_at = api.position(query), api.position(heads)
    key_at = api.position(key) if key is not None else None

    def cache_key(args: Sequence[Any], kwargs: Mapping[str, Any]) -> _Keyed:
        mask = _given(args, kwargs, mask_at)
        lengths = (_meta(args[query_at]), _meta(args[key_at]) if key_at is not None else None)
        known = _mask_key(mask)
        found = (lengths, args[heads_at], known, _given(args, kwargs, type_at))
        return found, _by_identity(known, mask), _tensors(mask)

    return cache_key


def _key_nested(args: Sequence[Any], kwargs: Mapping[str, Any]) -> _Keyed:
    """``torch._nested_tensor_from_mask(t, mask)``: the encoder's kept tokens, [B, S]."""
    mask = _given(args, kwargs, _NESTED["mask"])
    known = _mask_key(mask)
    return (
        (_meta(_given(args, kwargs, _NESTED["t"])), known),
        _by_identity(known, mask),
        _tensors(mask),
    )


_KEYS: dict[Any, Callable[[Sequence[Any], Mapping[str, Any]], _Keyed]] = {
    _function(api): keyer
    for api, keyer in zip(
        _ENTRY_POINTS,
        (
            _key_sdpa,
            _key_mha,
            _key_fused(apis.NATIVE_MHA, "query", "key", "num_head"),
            _key_fused(apis.TRANSFORMER_ENCODER_LAYER_FWD, "src", None, "num_heads"),
            _key_nested,
        ),
        strict=True,
    )
}


@dataclass
class _Entry:
    """What a check saw for one key, and what the call's output needs.

    ``refs``: the masks known by identity (the entry holds while they are the same tensors);
    ``hides``: whether the masks hide some key from every query (then an output is read, AW215);
    ``last``: the masks of the last call that read its output: a new mask object with the same
    bytes (the next batch's padding) has its output read once more; ``values``: the check read
    the keys as well (AW214's left padding), so the entry holds for the same mask objects only.
    """

    refs: tuple[weakref.ref[Tensor], ...]
    seen: tuple[_Seen, ...]
    hides: bool
    last: tuple[weakref.ref[Tensor], ...]
    values: bool  # what was seen rests on the keys' values too: the same mask objects only


# (check, key) -> its entry; bounded, shared by watches
_CACHE: dict[Any, _Entry] = {}
_CACHE_SIZE = 512


def _same(refs: Sequence[weakref.ref[Tensor]], masks: Sequence[Tensor]) -> bool:
    return len(refs) == len(masks) and all(r() is m for r, m in zip(refs, masks, strict=True))


def _cached(
    original: Any, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Any, list[Tensor], _Entry | None]:
    """The call's cache key, its masks, and the entry of the same masks seen before, if any."""
    keyer = _KEYS.get(original)
    if keyer is None:
        return None, [], None
    try:
        key, identity, masks = keyer(args, kwargs)
        key = (original, key)
        entry = _CACHE.get(key)
    except Exception:  # an inference tensor has no version counter; an unhashable argument
        return None, [], None
    if entry is not None and (
        _same(entry.last, masks) if entry.values else _same(entry.refs, identity)
    ):
        return key, masks, entry
    return (key, tuple(weakref.ref(m) for m in identity)), masks, None


def _entry_point(original: Any) -> Callable[..., Any]:
    """A wrapper that checks a call of ``original`` (through ``_CHECKS``), then makes it."""

    @functools.wraps(original)
    def watched(*args: Any, **kwargs: Any) -> Any:
        if torch.compiler.is_compiling():
            return original(*args, **kwargs)
        owner = _active()
        if owner is None:
            return original(*args, **kwargs)
        read = False
        if owner._sampled():
            check = _CHECKS.get(original)
            if check is not None:
                read = owner._see(original, check, args, kwargs)
            if original is _MHA_FORWARD and "tokens" in _LOCAL.__dict__:
                owner._run(lambda: _batch_first_input(args, kwargs))
        _LOCAL.busy = True  # what this call runs inside (an SDPA, a softmax) is not checked again
        try:
            out = original(*args, **kwargs)
        finally:
            _LOCAL.busy = False
        if read and original in _HIDDEN:  # its masks were read: so is its output, once (AW215)
            owner._run(lambda: _check_hidden_keys(original, args, kwargs, out))
        return out

    return watched


def _as_tuple_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    """``BlockMask.as_tuple``, which ``flex_attention`` calls once per call: check the mask."""

    @functools.wraps(original)
    def as_tuple(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not torch.compiler.is_compiling():
            owner = _active()
            if owner is not None and owner._sampled():
                owner._run(lambda: _check_block_mask(self, owner.dense_limit))
        return original(self, *args, **kwargs)

    return as_tuple


# -- a batch-first input to a sequence-first module (AW218) --------------------------------------
# nn.MultiheadAttention built without batch_first=True reads [L, B, E]; given [B, L, E] it raises
# nothing and attends across the batch.  The values show it only where token ids do: the last ids
# embedded with a padding index (F.embedding, which nn.Embedding calls) are kept, and where a
# query has exactly their shape [B, L] (B != L) and their padding runs along dim 1 in every item
# but not along dim 0, dim 0 of the query is the batch.

_LAYOUTS: dict[int, Any] = {}  # id(ids) -> (ref, version, layout)


def _embedding_watched(original: Callable[..., Any]) -> Callable[..., Any]:
    """``F.embedding``: keep a reference to token ids embedded with a padding index.

    Only a reference is kept (a few hundred nanoseconds): the ids are looked at only where a
    sequence-first attention call gets a query of their shape.
    """

    @functools.wraps(original)
    def embedding(
        input: Any, weight: Any, padding_idx: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        if (
            padding_idx is not None
            and _active() is not None
            and isinstance(input, Tensor)
            and not torch.compiler.is_compiling()
        ):
            _LOCAL.tokens = (weakref.ref(input), padding_idx, weight)
        return original(input, weight, padding_idx, *args, **kwargs)

    return embedding


def _padded_at_one_end(padded: Tensor) -> bool:
    """Whether every row's padding is one run at its end, or every row's one run at its start."""
    ones = padded.to(torch.uint8)
    flipped = ones.flip(-1)
    return bool((ones.cummax(-1).values == ones).all()) or bool(
        (flipped.cummax(-1).values == flipped).all()
    )


def _token_layout(ids: Tensor, padding_idx: int) -> str | None:
    """Which axis of ``[d0, d1]`` token ids runs along the sequence, as their padding shows.

    ``"batch-first"`` where every row's padding is a run at one end of dim 1 (the same end for
    every row) and the columns' is not so along dim 0; ``"sequence-first"`` the reverse; None
    where there is no padding, or where both readings fit (a batch sorted by length).

    >>> ids = torch.tensor([[5, 6, 7, 0, 0], [5, 6, 7, 8, 9], [5, 6, 7, 8, 0]])  # [B, T]
    >>> _token_layout(ids, 0), _token_layout(ids.t(), 0)
    ('batch-first', 'sequence-first')
    >>> _token_layout(torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]]), 0) is None  # sorted
    True
    """
    padded = ids == padding_idx
    if not bool(padded.any()) or bool(padded.all()):
        return None
    rows, columns = _padded_at_one_end(padded), _padded_at_one_end(padded.t())
    if rows != columns:
        return "batch-first" if rows else "sequence-first"
    return None


def _batch_first_input(args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[_Seen]:
    """AW218: the query of a sequence-first call laid out as the token ids, batch first."""
    remembered = _LOCAL.__dict__.get("tokens")
    query = _given(args, kwargs, _F["query"])
    if remembered is None or not isinstance(query, Tensor) or query.dim() != 3:
        return []
    ref, pad, weight = remembered
    ids = ref()
    if ids is None or ids.dim() != 2:
        return []
    pad = int(pad) % int(weight.shape[0]) if isinstance(weight, Tensor) else int(pad)
    batch, length = (int(n) for n in ids.shape)
    if batch == length or (int(query.shape[0]), int(query.shape[1])) != (batch, length):
        return []
    entry = _looked_up(_LAYOUTS, ids)
    if entry is None or entry[1] != ids._version:
        _remember(_LAYOUTS, ids, (ids._version, _token_layout(ids, pad)))
        entry = _looked_up(_LAYOUTS, ids)
    if entry[2] != "batch-first":
        return []
    seen = (
        f"query {_shape(query)} is laid out as the token ids {_shape(ids)} it was embedded from, "
        f"whose padding (index {pad}) runs along dim 1 in every item: dim 0 holds {batch} "
        f"batch items, which the call reads as a sequence of {batch} positions"
    )
    return [_Seen("AW218", _MHA, seen, ())]


def _targets() -> list[tuple[Any, str, Callable[[Any], Callable[..., Any]]]]:
    """(owner, attribute, how to wrap it): every place the watch sits."""
    targets: list[tuple[Any, str, Callable[[Any], Callable[..., Any]]]] = [
        *((*_owner(api), _entry_point) for api in _ENTRY_POINTS),
        (F, "_canonical_mask", _canonical_mask_watched),
        (F, "embedding", _embedding_watched),
        *_softmax_targets(),
    ]
    try:
        from torch.nn.attention.flex_attention import BlockMask
    except ImportError:  # pragma: no cover - every supported torch has it
        return targets
    return [*targets, (BlockMask, "as_tuple", _as_tuple_watched)]


def _install() -> None:
    global _installed
    with _INSTALL_LOCK:
        _installed += 1
        if _installed > 1:
            return
        for owner, name, wrap in _targets():
            # a class's own attribute is put back; an inherited one (Tensor.softmax) is deleted
            own = not isinstance(owner, type) or name in owner.__dict__
            original = getattr(owner, name)
            _SAVED.append((owner, name, original if own else None))
            setattr(owner, name, wrap(original))


def _uninstall() -> None:
    global _installed
    with _INSTALL_LOCK:
        _installed -= 1
        if _installed:
            return
        while _SAVED:
            owner, name, original = _SAVED.pop()
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        _ORIGIN.clear()
        _CACHE.clear()  # masks known by their bytes: a new watch reads them afresh
        _FILL_FACTS_BY_BYTES.clear()
        for table in (_BYTES, _FILLS, _FACTS, _FACTS_SUBTRACTED, _FILL_FACTS, _PRODUCTS, _VALUES):
            table.clear()
        _LAYOUTS.clear()
        _LOCAL.__dict__.pop("tokens", None)


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
    # the rows are verified on the CPU only: a CUDA kernel may return something else (NaN has
    # been measured there for SDPA's empty rows), so the sentence names the device it rests on
    return (
        f"On torch {release} on the CPU this call returns {_RETURNS.get(word, word)} for them "
        f"({row}; not verified on CUDA)"
    )


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
        every: int = 1,
        threads: bool = False,
    ) -> None:
        unknown = sorted(set(ignore) - set(RULES))
        if unknown:
            raise ValueError(f"ignore names unknown rule codes {unknown}; known: {sorted(RULES)}")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a whole number of calls, at least 1; got {every!r}")
        self.every = every
        self.threads = threads
        self._calls = 0
        self.strict = strict
        self.ignore = frozenset(ignore)
        self.warn = warn
        self.base_url = base_url
        self.version = version
        self.language = language
        self.dense_limit = dense_limit
        self.findings: list[Finding] = []
        self.errors: list[str] = []  # checks that could not run on an input (never raised)
        self._opened: list[list[Watch]] = []  # the stacks this watch was pushed on, by entry

    def __enter__(self) -> Watch:
        _install()
        stack = _SHARED if self.threads else _LOCAL.__dict__.setdefault("stack", [])
        stack.append(self)
        self._opened.append(stack)
        return self

    def __exit__(self, *exc: object) -> None:
        stack = self._opened.pop()
        try:
            for i in reversed(range(len(stack))):
                if stack[i] is self:
                    del stack[i]
                    break
        finally:
            _uninstall()

    def _sampled(self) -> bool:
        """Whether this call is one the watch checks (``every=N``: one call in N)."""
        if self.every == 1:
            return True
        self._calls += 1
        return self._calls % self.every == 1

    def _see(
        self, original: Any, check: Callable[..., list[_Seen]], args: Any, kwargs: Any
    ) -> bool:
        """Check one call, or reuse what was seen for the same, unchanged masks.

        Returns whether the masks were read (not seen before, or changed), and found fine enough
        to read the call's output after it: a NaN there may come from a key they hide (AW215).
        """
        key, masks, entry = _cached(original, args, kwargs)
        if entry is not None:
            for item in entry.seen:
                if item.code not in self.ignore:
                    self._report(item)
            if not entry.hides or _same(entry.last, masks):
                return False
            entry.last = tuple(weakref.ref(m) for m in masks)
            return True
        limit = self.dense_limit
        _LOCAL.values_read = False
        found = self._run(lambda: check(args, kwargs, limit))
        if found is None:
            return False
        hidden = _HIDDEN.get(original)
        hides = (
            hidden is not None
            and bool(masks)
            and self._quietly(lambda: hidden(args, kwargs) is not None) is True
        )
        if key is not None:
            cache_key, refs = key
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.clear()
            last = tuple(weakref.ref(m) for m in masks)
            values = bool(_LOCAL.__dict__.get("values_read"))
            _CACHE[cache_key] = _Entry(refs, tuple(found), hides, last, values)
        return hides

    def _quietly(self, read: Callable[[], _T]) -> _T | None:
        """``read()`` without ever breaking the call: None (and an entry in errors) if it fails."""
        previous = _LOCAL.__dict__.get("busy", False)
        _LOCAL.busy = True
        grad = torch.is_grad_enabled()  # the checks' reads need no graph (no_grad, but cheaper)
        try:
            if grad:
                torch._C._set_grad_enabled(False)
            return read()
        except Exception as error:  # an input the checks do not understand: the call goes on
            self.errors.append(f"{type(error).__name__}: {error}")
            return None
        finally:
            if grad:
                torch._C._set_grad_enabled(True)
            _LOCAL.busy = previous

    def _run(self, check: Callable[[], list[_Seen]]) -> list[_Seen] | None:
        """Run one check without ever breaking the call; report what it saw and return it."""
        seen = self._quietly(check)
        if seen is None:
            return None
        for item in seen:
            if item.code not in self.ignore:
                self._report(item)
        return seen

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
    every: int = 1,
    threads: bool = False,
) -> Watch:
    """Report the mask mistakes of the attention calls made inside the ``with`` block.

    Args:
        strict: raise :class:`~attention.review.watch_rules.AttentionWatchError` at the first
            finding instead of warning: before the call runs for what its masks show, after it
            for what its result shows (a softmax's weights, a NaN output).
        ignore: rule codes not to report (``("AW201",)`` where a mask that hides each token
            from itself is meant).
        warn: issue a warning per finding (otherwise they are only kept in ``findings``).
        base_url: the site the row links point to (default: the project's documentation).
        version: the site version they cite (default: this package's version).
        language: ``"en"`` or ``"zh_CN"``, the language of the linked pages.
        dense_limit: the largest ``B·H·L·S`` for which a ``flex_attention`` ``mask_mod`` is
            evaluated on every (query, key) pair; larger block masks are checked block by block.
        every: check one watched call in ``every`` (the first, then every ``every``-th), to
            sample a long run; a mask seen before and unchanged is not checked again anyway.
        threads: watch the calls of every thread while the block runs, not only this one's.
            Without it a thread started inside the block is not watched.

    >>> import torch, warnings
    >>> from torch import nn
    >>> mha = nn.MultiheadAttention(embed_dim=4, num_heads=1, batch_first=True)
    >>> x = torch.ones(2, 3, 4)
    >>> padding = torch.tensor([[False, False, True], [True, True, True]])  # item 1: all padding
    >>> with warnings.catch_warnings(record=True), watch() as seen:
    ...     out, weights = mha(x, x, x, key_padding_mask=padding)
    >>> print(seen.findings[0].headline)              # doctest: +NORMALIZE_WHITESPACE
    AW203 padding-hides-item: key_padding_mask [2, 3] (torch.bool) hides every key of
    batch item 1
    >>> print(seen.findings[0].returns)                # doctest: +NORMALIZE_WHITESPACE
    On torch ... on the CPU this call returns NaN for them (mha.fully_masked_row.need_weights_true;
    not verified on CUDA)
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
        every=every,
        threads=threads,
    )


# -- what the watch costs: attention.review.watch_benchmark ---------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attention.review.watch --out record.json``: measure and record the overhead.

    The measurement lives in :mod:`attention.review.watch_benchmark`; this entry point stays for
    ``nox -s bench``.
    """
    from attention.review.watch_benchmark import main as benchmark

    return benchmark(argv)


class _CallableModule(types.ModuleType):
    """``attention.review.watch`` is this module once imported: calling it calls :func:`watch`."""

    def __call__(self, strict: bool = False, **options: Any) -> Watch:
        return watch(strict, **options)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    raise SystemExit(main())
