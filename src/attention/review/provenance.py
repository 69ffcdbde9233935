"""What a name holds and where it came from: the facts the rules reason about.

The checker evaluates each expression of a function, in order, to one of the values below and
keeps them per name, so a mask built on line 12 (``pad = ids == PAD``) is still known at the call
on line 30 that receives it.  Every value remembers its :class:`Origin`, the expression that made
it, which a finding quotes ("`pad` is True = padding (line 12: `ids == PAD`)").

The conventions a Boolean (or 0/1) mask can have, as the package names them:

* ``allowed``: True (or 1) = may attend (SDPA's ``attn_mask``, ``flex_attention``'s
  ``mask_mod``, a Hugging Face ``attention_mask`` written as integers);
* ``forbidden``: True = masked out (``nn.MultiheadAttention``, ``nn.Transformer*``,
  ``masked_fill(mask, -inf)``);
* an **additive** mask is a float added to the scores: 0 = keep, a large negative = forbid.

A value whose meaning comes only from its name (a parameter called ``pad_mask``) is marked
``by_name``: rules may warn about it, never report an error.

>>> Triangle(lower=True, diagonal=0).describe()
'True on and below the diagonal (tril)'
>>> Triangle(lower=True, diagonal=0).complement() == Triangle(lower=False, diagonal=1)
True
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CAUSAL",
    "Const",
    "Dtype",
    "Embedded",
    "KeyCat",
    "Mask",
    "Meaning",
    "Module",
    "Origin",
    "Scale",
    "Scores",
    "Triangle",
    "Value",
    "Weights",
    "mask_from_name",
    "names_a_head_size",
    "scale_from_name",
]

Meaning = Literal["allowed", "forbidden"]
"""What True (or 1) means in a Boolean or 0/1 mask."""

Dtype = Literal["bool", "int", "float"]

HEAD_SIZE_NAMES = ("head_dim", "dim_head", "head_size", "d_head", "d_k", "dk", "hs", "head_dims")
WIDTH_NAMES = (
    "d_model",
    "embed_dim",
    "hidden_size",
    "n_embd",
    "dim",
    "num_heads",
    "n_head",
    "n_heads",
    "heads",
    "hidden_dim",
    "model_dim",
    "width",
    "embedding_dim",
    "feats",
    "emb_size",
    "embed_size",
    "emb_dim",
    "embedding_size",
    "n_embed",
    "d_embed",
    "n_feat",
    "attention_dim",
    "adim",
    "hidden_units",
)


@dataclass(frozen=True)
class Origin:
    """The expression a value came from: its node (for the line) and why it means what it means."""

    node: ast.AST
    reason: str


@dataclass(frozen=True)
class Triangle:
    """The set of (query i, key j) where a triangular mask is True: ``tril``/``triu`` at a diagonal.

    ``tril(d)`` is True where ``j <= i + d``; ``triu(d)`` where ``j >= i + d``.
    """

    lower: bool
    diagonal: int

    def complement(self) -> Triangle:
        """The set where the mask is False (``~tril(d)`` is ``triu(d + 1)``)."""
        if self.lower:
            return Triangle(lower=False, diagonal=self.diagonal + 1)
        return Triangle(lower=True, diagonal=self.diagonal - 1)

    def describe(self) -> str:
        """Where the mask is True, in words."""
        name = "tril" if self.lower else "triu"
        if self.diagonal == 0:
            where = "on and below" if self.lower else "on and above"
            return f"True {where} the diagonal ({name})"
        if not self.lower and self.diagonal == 1:
            return "True above the diagonal: the future (triu, diagonal=1)"
        if self.lower and self.diagonal == -1:
            return "True below the diagonal only (tril, diagonal=-1)"
        return f"True where {name}(diagonal={self.diagonal}) keeps"


CAUSAL = Triangle(lower=True, diagonal=0)
"""The allowed set of a causal mask: each query sees itself and the keys before it."""


@dataclass(frozen=True)
class Mask:
    """A mask: Boolean / 0-1 (``kind="mask"``) or additive (``kind="additive"``).

    ``meaning`` is what True means (None when unknown, as for a bare triangle, whose meaning
    the receiving API decides); ``true_set`` the triangle where it is True.  ``key_padding``: one
    entry per key, ``[B, S]``; ``key_last`` says the key axis is still the last one.
    ``finfo_terms`` counts ``torch.finfo(...).min`` penalties summed into an additive mask.
    ``triangle_at``: the ``tril`` / ``triu`` call that built ``true_set``, where a wrong triangle
    is fixed.  ``moved_at``: the ``unsqueeze`` that moved a padding mask's key axis off the last
    place.
    ``overflow``: an additive mask made as a tensor times a constant float16 cannot hold.
    ``wide``: float32 or float64 for certain (built by ``torch.full`` with no dtype).
    ``batch``: read from a tokenizer's output (``batch["attention_mask"]``,
    ``encoded.attention_mask``), which holds integers, not from a parameter's name alone.
    ``unranked_at``: a subscript of a mask of unknown rank that ends in ``None`` right after
    its last slice (``mask[:, None, :, None]``, ``mask[:, :, None]``); if the mask has only the
    axes it names (a ``[B, S]`` mask, which gives ``unranked_ndim`` axes), its last axis now
    lies on the query axis.  ``rank_shown``: the sizes list (``expand``) or the scores that
    showed that rank (:meth:`ranked`), so the move does not rest on a name.
    ``empty_row``: the index assignment that set one whole query row (every key) to
    ``row_value``, unlike the rest of the mask: 0 or 1 in a Boolean or 0/1 mask, -inf in an
    additive one (``bias[..., 2, :] = float("-inf")``).  ``interleaved``: tiled for the heads
    batch-major, ``repeat_interleave(H, dim=0)`` (``repeated``: head-major, ``repeat(H, 1, 1)``).
    ``head_axes``: where the mask was expanded to one copy per head (``expand(B, H, L, S)``),
    its axes as they lie now (``("H", "B", "L", "S")`` after ``transpose(0, 1)``), until a
    reshape merges the first two.  ``additive_when``: the setting under which the same function
    returns an additive mask instead of this Boolean one (transformers' mask functions under
    ``attn_implementation="eager"``, :data:`~attention.review.apis.MASK_MAKERS`).
    """

    kind: Literal["mask", "additive"]
    origin: Origin
    dtype: Dtype | None = None
    meaning: Meaning | None = None
    true_set: Triangle | None = None
    key_padding: bool = False
    key_last: bool = True
    ndim: int | None = None
    by_name: bool = False
    hf: bool = False
    finfo_terms: int = 0
    repeated: Origin | None = None
    query_and_key: Origin | None = None
    batch: bool = False
    triangle_at: Origin | None = None
    moved_at: Origin | None = None
    overflow: Const | None = None
    wide: bool = False
    unranked_at: Origin | None = None
    unranked_ndim: int | None = None
    rank_shown: Origin | None = None
    empty_row: Origin | None = None
    row_value: float | None = None
    interleaved: Origin | None = None
    head_axes: tuple[str, ...] | None = None
    additive_when: str | None = None

    def but(self, **changes: object) -> Mask:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def ranked(self, ndim: int | None, at: Origin) -> Mask:
        """The mask once ``at`` shows it ``ndim`` axes: a per-position mask on the query axis.

        A ``[B, S]`` (or ``[S]``) mask is the only one the subscript can leave with exactly
        ``unranked_ndim`` axes, and what it holds per position (padding) then runs along the
        queries.
        """
        if self.unranked_at is None or ndim is None or ndim != self.unranked_ndim:
            return self
        return self.but(
            key_padding=True,
            key_last=False,
            ndim=ndim,
            moved_at=self.unranked_at,
            unranked_at=None,
            unranked_ndim=None,
            rank_shown=at,
        )

    def flipped(self, origin: Origin) -> Mask:
        """The mask under ``~``: the other meaning, the complementary triangle."""
        meaning: Meaning | None = None
        if self.meaning == "allowed":
            meaning = "forbidden"
        elif self.meaning == "forbidden":
            meaning = "allowed"
        triangle = self.true_set.complement() if self.true_set is not None else None
        row = self.row_value
        if self.kind == "mask" and row in (0.0, 1.0):
            row = 1.0 - row
        return self.but(meaning=meaning, true_set=triangle, origin=origin, hf=False, row_value=row)

    def says(self) -> str:
        """What the mask holds, in words: "True = padding", "1 = real token (Hugging Face)"."""
        if self.kind == "additive":
            return "an additive mask (0 = keep, a large negative = forbid)"
        if self.true_set is not None:
            return self.true_set.describe()
        one = "True" if self.dtype in (None, "bool") else "1"
        if self.hf:
            return f"{one} = real token, 0 = padding (a Hugging Face attention_mask)"
        if self.meaning == "forbidden":
            return f"{one} = padding / masked out" if self.key_padding else f"{one} = masked out"
        if self.meaning == "allowed":
            return f"{one} = real token / may attend" if self.key_padding else f"{one} = may attend"
        return "a mask"


@dataclass(frozen=True)
class Const:
    """A number: a literal, ``float("-inf")``, ``torch.finfo(dtype).min`` (``finfo=True``).

    ``relative``: a fraction of the dtype's own range (``torch.finfo(dtype).min / 2``), which
    fits whatever the dtype; ``value`` is then only its order of magnitude in float32.
    """

    value: float
    origin: Origin
    finfo: bool = False
    relative: bool = False


@dataclass(frozen=True)
class Scores:
    """Query-key scores ``q @ k.transpose(-2, -1)``; ``scaled`` once a scale was applied.

    ``masked`` once a mask or a bias was applied to them; ``pending`` holds the findings about
    a fill of these scores, reported only if the scores reach a softmax (a fill of logits that
    no softmax reads, a ranking head's, proves nothing about attention).  ``empty_row``: where
    a mask that leaves one query row all -inf was built.  ``penalised``: where a mask's penalty
    (-inf, a large negative fill, an additive mask) went into them.  ``major``: how their
    ``[B·H, L, S]`` rows are ordered, where the head split shows it
    (:mod:`~attention.review.heads`).  ``merged``: where a ``view`` / ``reshape`` / ``flatten``
    folded the key axis into one with other axes (``s.reshape(B, H, L * S)``).  ``key_axes``:
    how many trailing axes index the keys (2 for an einsum's ``...hw`` of a feature map).
    ``scaled_by``: the scale, written out as a root or a power, that already divided them by
    √d (multiplied them by 1/√d).  ``key_at``: where the key axis is, counted from the end
    (-1 for ``q @ kᵀ``; -2 for an einsum's ``...kq`` or scores transposed).
    """

    origin: Origin
    scaled: bool
    ndim: int | None = None
    masked: bool = False
    pending: tuple[object, ...] = ()
    late: Origin | None = None
    wide: bool = False
    fixable: object | None = None
    biased: bool = False
    empty_row: Origin | None = None
    penalised: Origin | None = None
    major: Literal["batch", "head"] | None = None
    merged: Origin | None = None
    key_axes: int = 1
    scaled_by: Scale | None = None
    key_at: int = -1


@dataclass(frozen=True)
class Weights:
    """A softmax over scores: attention weights; ``masked_at`` where a mask was applied to them.

    ``unmasked``: the softmax read scores known to carry no mask, so a mask applied to the
    weights is the only one (not a guard that zeroes rows already masked before the softmax).
    ``unscaled``: the softmax read scores no scale had reached.  ``nan_at``: the softmax whose
    row of -inf scores gives NaN weights, until a guard flushes them.  ``weak``: the fills
    that left masked scores near zero (AM203), moot once a mask zeroes these weights.
    """

    origin: Origin
    masked_at: Origin | None = None
    unmasked: bool = False
    unscaled: bool = False
    nan_at: Origin | None = None
    weak: tuple[object, ...] = ()


@dataclass(frozen=True)
class Scale:
    """A scale factor.

    ``width`` names the model width or head count it was built from; ``inverted`` means the
    value is √d (a divisor), not 1/√d.
    """

    origin: Origin
    width: str | None = None
    inverted: bool = False


@dataclass(frozen=True)
class KeyCat:
    """Keys concatenated with a cache (``torch.cat([past_k, k])``): more keys than queries.

    ``maybe``: only on some of the paths that reach here.  ``axis``: the axis joined along,
    where written (``dim=1`` of ``[B, S, D]`` hidden states).
    """

    origin: Origin
    maybe: bool = False
    axis: int | None = None


@dataclass(frozen=True)
class Embedded:
    """A tensor the code shows to be batch first, ``[B, T, E]``.

    The output of an ``nn.Embedding`` of token ids ``[B, T]``, or a feature map ``[B, C, H, W]``
    flattened and transposed to ``[B, H·W, C]``; it stays so through what keeps its layout (a
    norm, dropout, an activation, a linear layer, adding positions, a copy).
    """

    origin: Origin


@dataclass(frozen=True)
class Module:
    """A constructed ``nn.MultiheadAttention``, ``nn.Transformer*`` or ``nn.Softmax`` module.

    ``dim``: an ``nn.Softmax``'s axis (None: not given, torch's implicit choice; ``implicit``
    False and ``dim`` None: given, but not as a literal).  ``out``: the output size of an
    ``nn.Linear`` (its last axis) or the channels of an ``nn.Conv1d`` (axis 1), where written
    as a literal.  ``parts``: the modules of an ``nn.Sequential``, in order.
    """

    kind: str
    batch_first: bool
    origin: Origin
    dim: int | None = None
    implicit: bool = False
    out: int | None = None
    parts: tuple[object, ...] = ()


Value = Mask | Const | Scores | Weights | Scale | KeyCat | Embedded | Module


def _words(name: str) -> str:
    return name.lower().lstrip("_")


def mask_from_name(name: str, node: ast.AST) -> Mask | None:
    """What a name alone says about a mask (a warning's ground, never an error's).

    >>> mask_from_name("src_key_padding_mask", ast.Name("m")).meaning
    'forbidden'
    >>> mask_from_name("attention_mask", ast.Name("m")).hf
    True
    """
    word = _words(name)
    if word in ("attention_mask", "attn_mask_hf") or word.endswith("attention_mask"):
        return Mask(
            "mask",
            Origin(node, f"`{name}` by its name"),
            dtype="int",
            meaning="allowed",
            key_padding=True,
            ndim=2,
            by_name=True,
            hf=True,
        )
    if "padding_mask" in word or word in ("pad_mask", "padmask", "mask_pad", "pad"):
        return Mask(
            "mask",
            Origin(node, f"`{name}` by its name"),
            dtype="bool",
            meaning="forbidden",
            key_padding=True,
            ndim=2,
            by_name=True,
        )
    if word.endswith("forbidden") or word.startswith("forbidden"):
        return Mask(
            "mask", Origin(node, f"`{name}` by its name"), "bool", "forbidden", by_name=True
        )
    if word.endswith("allowed") or word.startswith("allowed"):
        return Mask("mask", Origin(node, f"`{name}` by its name"), "bool", "allowed", by_name=True)
    return None


_NEGATED = r"(?:dis|in|un|not_?|non_?|no_?)"
_ALLOWED_WORDS = r"keep|allow|visib|valid"
# not "pad": `key_padding_mask = attention_mask` is the very mistake the name reveals
_FORBIDDEN_WORDS = r"remove|ignore|exclude|drop|forbid|skip|masked_out"


def meaning_named(name: str) -> Meaning | None:
    """The meaning a name states for the mask it holds, if it states one.

    A word negated says the other meaning: ``invalid``, ``disallowed`` and ``not_visible``
    say forbidden.  A padding name says nothing here: a Hugging Face mask assigned to
    ``key_padding_mask`` is the mistake the checker is there to report.

    >>> meaning_named("remove_from_windowed_attention_mask")
    'forbidden'
    >>> meaning_named("valid_keys"), meaning_named("invalid_keys"), meaning_named("mask")
    ('allowed', 'forbidden', None)
    >>> meaning_named("disallowed"), meaning_named("key_padding_mask"), meaning_named("block")
    ('forbidden', None, None)
    """
    word = _words(name)
    negated = rf"{_NEGATED}(?:({_ALLOWED_WORDS})|({_FORBIDDEN_WORDS}))"
    forbidden = allowed = False
    for found in re.finditer(negated, word):
        forbidden = forbidden or found.group(1) is not None
        allowed = allowed or found.group(2) is not None
    plain = re.sub(negated, "", word)
    forbidden = forbidden or re.search(_FORBIDDEN_WORDS, plain) is not None
    allowed = allowed or re.search(_ALLOWED_WORDS, plain) is not None
    if forbidden == allowed:
        return None
    return "forbidden" if forbidden else "allowed"


def names_a_head_size(name: str) -> bool:
    """Whether a name is one head's width: ``dim_head``, ``head_dim``, ``d_k``.

    >>> names_a_head_size("self_head_dim"), names_a_head_size("d_model")
    (True, False)
    """
    word = _words(name)
    return word in HEAD_SIZE_NAMES or "head_dim" in word


def scale_from_name(names: list[str]) -> str | None:
    """The model-width name a scale is built from, if it names no head size.

    >>> scale_from_name(["dim"])
    'dim'
    >>> scale_from_name(["dim_head"]) is None
    True
    """
    words = [_words(name) for name in names]
    if any(map(names_a_head_size, names)):
        return None
    for word, name in zip(words, names, strict=True):
        if word in WIDTH_NAMES:
            return name
    return None
