"""AM2xx, fills: what a masked score is filled with or has added.

The value must take the weight to zero without overflowing the dtype.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

import ast
import dataclasses
import math
from typing import TYPE_CHECKING

from attention.review import events
from attention.review.events import on
from attention.review.ops.triangles import _frees_the_diagonal
from attention.review.provenance import (
    Const,
    Mask,
    Origin,
    Scores,
)
from attention.review.rules import (
    am1_polarity,
)
from attention.review.sinks import NOT_ZEROING
from attention.review.syntax import (
    Arg,
)
from attention.review.values import _number, _overflows_float16

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _SCORES
from attention.review.rules._rule import Rule

READS = (
    "The value a masked score is filled with or has added (a constant, "
    "`torch.finfo(dtype).min`, a tensor holding one, a 0/1 mask converted to numbers), the "
    "dtype the code or its tree shows (`.half()`, float16, autocast), and whether a softmax "
    "reads the filled tensor, whatever the tensor is called."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A fill that no softmax or attention API reads (a pooling's `-inf`, a detector's `INF` "
    "before `min`); a fill float16 cannot hold where neither the module nor its tree runs in "
    "float16; a value computed at run time."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM201",
        "boolean-mask-used-as-additive",
        "error",
        ("sdpa.attn_mask.float", "sdpa.attn_mask.bool", "mha.attn_mask.float"),
        "A Boolean mask turned into numbers (`.float()`, `.to(dtype)`) is added to the scores: "
        "1.0 and 0.0 shift them a little and forbid nothing.",
        "`{subject}` holds 0.0 / 1.0 from a Boolean mask and is added to the scores",
        "Pass the Boolean mask itself, or build an additive one: "
        "`torch.zeros_like(scores).masked_fill(~allowed, float('-inf'))` "
        "(attention.conventions.allowed_to_additive).",
        "import torch\n\n\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    causal = torch.tril(torch.ones(L, L, dtype=torch.bool))\n"
        + _SCORES
        + "    weights = torch.softmax(scores + causal.float(), dim=-1)\n    return weights @ v\n",
        "import torch\n\n\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    causal = torch.tril(torch.ones(L, L, dtype=torch.bool))\n"
        + _SCORES
        + "    weights = torch.softmax(scores.masked_fill(~causal, float('-inf')), dim=-1)\n"
        "    return weights @ v\n",
    ),
    Rule(
        "AM202",
        "fill-overflows-float16",
        "warning",
        ("sdpa.attn_mask.float", "sdpa.attn_mask.float32.low_precision"),
        "A finite fill such as -1e9 is beyond float16's range (65504): masked_fill raises "
        "there, and an additive mask overflows to -inf (NaN for a row with no allowed key).  "
        "Only in code that runs in float16 (the module or its tree names float16, `.half()`, "
        "`fp16` or autocast): in float32 the fill is right.",
        "`{subject}` does not fit in float16; under autocast or .half() this fill fails",
        "Use the dtype's own limit, `torch.finfo(scores.dtype).min` (`--fix` rewrites it), or "
        "float('-inf') with a guard for rows with no allowed key.",
        "import torch\n\n\ndef attend(q, k, v, forbidden):\n"
        '    with torch.autocast("cuda", dtype=torch.float16):\n'
        "    " + _SCORES + "        scores = scores.masked_fill(forbidden, -1e9)\n"
        "        return torch.softmax(scores, dim=-1) @ v\n",
        "import torch\n\n\ndef attend(q, k, v, forbidden):\n"
        '    with torch.autocast("cuda", dtype=torch.float16):\n'
        "    "
        + _SCORES
        + "        scores = scores.masked_fill(forbidden, torch.finfo(scores.dtype).min)\n"
        "        return torch.softmax(scores, dim=-1) @ v\n",
        fixable=True,
    ),
    Rule(
        "AM203",
        "fill-does-not-zero-the-weight",
        "warning",
        ("sdpa.attn_mask.float",),
        "A masked score is filled with a value that is not very negative (0, -1): its key keeps a "
        "weight comparable to the others.",
        "`{subject}` as a fill leaves the masked keys a real weight",
        "Fill with float('-inf') or torch.finfo(scores.dtype).min.",
        "import torch\n\n\ndef attend(q, k, v, forbidden):\n"
        + _SCORES
        + "    scores = scores.masked_fill(forbidden, 0)\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import torch\n\n\ndef attend(q, k, v, forbidden):\n"
        + _SCORES
        + "    scores = scores.masked_fill(forbidden, float('-inf'))\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
    Rule(
        "AM204",
        "finfo-min-added-twice",
        "error",
        ("sdpa.fully_masked_row.additive", "softmax.all_neg_inf_row", "sdpa.attn_mask.masked_nan"),
        "Two additive masks that each hold torch.finfo(dtype).min are added: where both forbid, "
        "the sum overflows to -inf, and a row that is all -inf gives NaN or a wrong weight.",
        "`{subject}` adds two masks that each hold torch.finfo(dtype).min",
        "Combine the Boolean masks first (`causal | padding`), then fill once; or clamp the sum "
        "with `.clamp(min=torch.finfo(dtype).min)`.",
        "import torch\n\n\ndef additive_masks(causal_forbidden, padding_forbidden, dtype):\n"
        "    low = torch.finfo(dtype).min\n"
        "    causal = torch.zeros(causal_forbidden.shape, dtype=dtype).masked_fill(causal_forbidden, low)\n"
        "    padding = torch.zeros(padding_forbidden.shape, dtype=dtype).masked_fill(padding_forbidden, low)\n"
        "    return causal + padding\n",
        "import torch\n\n\ndef additive_masks(causal_forbidden, padding_forbidden, dtype):\n"
        "    forbidden = causal_forbidden | padding_forbidden\n"
        "    return torch.zeros(forbidden.shape, dtype=dtype).masked_fill(forbidden, torch.finfo(dtype).min)\n",
    ),
    Rule(
        "AM205",
        "boolean-mask-times-infinity",
        "error",
        ("sdpa.attn_mask.masked_nan", "sdpa.attn_mask.float"),
        "A 0/1 mask is multiplied by -inf to make an additive mask: 0 × -inf is NaN, so every "
        "kept score becomes NaN instead of staying as it was.",
        "`{subject}` multiplies a 0/1 mask by infinity",
        "`torch.where(allowed, 0.0, float('-inf'))`, or "
        "`torch.zeros_like(scores).masked_fill(~allowed, float('-inf'))`.",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        '    bias = (1 - allowed.to(q.dtype)) * float("-inf")\n'
        "    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + bias\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        '    bias = torch.where(allowed, 0.0, float("-inf"))\n'
        "    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + bias\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
    Rule(
        "AM206",
        "boolean-tensor-filled-with-numbers",
        "error",
        ("sdpa.attn_mask.bool", "sdpa.attn_mask.float"),
        "masked_fill on a Boolean tensor keeps its dtype: -inf (or any nonzero number) is stored "
        "as True and 0.0 as False, so what was meant as an additive mask is still 0/1 and, once "
        "converted to float and added, forbids nothing.",
        "`{subject}` is stored into a Boolean tensor",
        "Fill a float tensor: `torch.zeros(shape).masked_fill(~allowed, float('-inf'))`, or "
        "`torch.where(allowed, 0.0, float('-inf'))`.",
        "import torch\n\n\ndef future_mask(size):\n"
        "    allowed = torch.tril(torch.ones(size, size)) == 1\n"
        '    return allowed.masked_fill(~allowed, float("-inf")).float()\n',
        "import torch\n\n\ndef future_mask(size):\n"
        "    allowed = torch.tril(torch.ones(size, size)) == 1\n"
        '    return torch.zeros(size, size).masked_fill(~allowed, float("-inf"))\n',
    ),
)


def overflow_sink(ev: Interpreter, mask: Mask) -> None:
    """AM202: an additive mask built as a tensor times a constant float16 cannot hold."""
    if mask.kind == "additive" and mask.overflow is not None:
        ev.hit(
            "AM202",
            mask.origin.node,
            f"a tensor times {_number(mask.overflow.value)} keeps the tensor's dtype: "
            "float16's largest magnitude is 65504, so the penalty becomes -inf there (NaN "
            "for a row with no allowed key)",
            [(f"the constant {_number(mask.overflow.value)}", mask.overflow.origin)],
            overflows=mask.overflow,
        )


def multiplied_mask(ev: Interpreter, scores: Scores, node: ast.AST) -> Scores:
    """AM203: scores times a 0/1 mask: a masked score becomes 0, not -inf (waits a softmax)."""
    found = ev.hit(
        "AM203",
        node,
        "a masked score must become -inf (or finfo.min) so its weight is 0; multiplied by a "
        "0/1 mask it becomes 0, and its key keeps a weight comparable to the others",
    )
    ev.hits.remove(found)
    return dataclasses.replace(scores, masked=True, pending=(*scores.pending, found), fixable=None)


def infinite_product(
    ev: Interpreter, const: Const, node: ast.AST, fact: tuple[str, Origin]
) -> None:
    """AM205: a tensor with zeros in it (a 0/1 mask, ``1 - x``) times ±inf."""
    if math.isinf(const.value):
        ev.hit(
            "AM205",
            node,
            "0 × -inf is NaN: where the mask is 0 (kept) the product is NaN, not 0; build the "
            "additive mask with torch.where(mask, 0.0, -inf) or masked_fill",
            [fact],
        )


def overflow_check(ev: Interpreter, const: Const, node: ast.AST, dtype: str) -> None:
    """AM202: a tensor holding a constant beyond float16's range converted to ``dtype``."""
    if not _overflows_float16(const) or const.relative:
        return
    ev.hit(
        "AM202",
        node,
        f"{_number(const.value)} is converted to {dtype}: float16's largest magnitude is "
        "65504 (bfloat16's 3.39e38), so where the dtype is narrower the constant becomes "
        "-inf",
        [(f"holds {_number(const.value)}", const.origin)],
        overflows=const,
    )


def weak_fill(ev: Interpreter, scores: Scores, fill: ast.AST) -> Scores:
    """AM203 for a fill that leaves masked keys a weight (waits for a softmax).

    Scores that already carry a penalty are masked: a 0 set into them then resets rows
    (a padded query's, to a uniform row instead of NaN), which is no weak mask.
    """
    if scores.penalised is not None:
        return dataclasses.replace(scores, masked=True, fixable=None)
    found = ev.hit(
        "AM203",
        fill,
        "a masked score must become -inf (or finfo.min) so its weight is 0; this fill "
        "leaves the masked keys a weight comparable to the others",
    )
    ev.hits.remove(found)
    return dataclasses.replace(scores, masked=True, pending=(*scores.pending, found), fixable=None)


def additive_sink(ev: Interpreter, mask: Mask, node: ast.AST | Arg, reads: str) -> None:
    """A mask added to the scores: a 0/1 mask forbids nothing."""
    if mask.kind == "additive":
        am1_polarity.penalty_triangle(ev, mask, node, reads)
        return
    # an HF `attention_mask` added as it is: inside attention layers that name usually holds
    # the already expanded additive mask, so the name proves nothing here
    # an unknown dtype proves nothing: `x.new([-inf]).triu()` is a triangle of penalties
    if not mask.by_name and mask.dtype in ("float", "bool"):
        ev.hit(
            "AM201",
            node,
            f"{reads}: a 0/1 mask adds 1.0 or 0.0, it forbids nothing",
            [am1_polarity.fact(ev, mask)],
        )


@on(events.MaskAdded)
def _mask_added(ev: Interpreter, event: events.MaskAdded) -> None:
    additive_sink(ev, event.mask, event.node, event.reads)
    overflow_sink(ev, event.mask)


@on(events.ConstantCast)
def _constant_cast(ev: Interpreter, event: events.ConstantCast) -> None:
    overflow_check(ev, event.const, event.node, event.dtype)


@on(events.ZerosTimesConstant)
def _zeros_times_constant(ev: Interpreter, event: events.ZerosTimesConstant) -> None:
    infinite_product(ev, event.const, event.node, event.fact)


@on(events.AdditiveMasksSummed)
def _additive_masks_summed(ev: Interpreter, event: events.AdditiveMasksSummed) -> None:
    """AM204: two penalties of torch.finfo(dtype).min summed where both may forbid."""
    left, right = event.left, event.right
    if left.finfo_terms and right.finfo_terms and not _frees_the_diagonal(left, right):
        ev.hit(
            "AM204",
            event.node,
            "each term may be torch.finfo(dtype).min; their sum overflows to -inf",
            [
                ("a torch.finfo(...).min penalty", left.origin),
                ("a torch.finfo(...).min penalty", right.origin),
            ],
        )


@on(events.BooleanTensorFilled)
def _boolean_tensor_filled(ev: Interpreter, event: events.BooleanTensorFilled) -> None:
    """AM206: a number filled into a Boolean tensor is stored as True or False."""
    ev.hit(
        "AM206",
        event.fill,
        "masked_fill keeps the tensor's dtype: into a Boolean tensor any nonzero fill "
        "(-inf, -1e9) is stored as True and 0.0 as False, so the result is still a 0/1 "
        "mask, not an additive one",
        [(event.mask.says(), event.mask.origin)],
    )


@on(events.ScoresFilled)
def _scores_filled(ev: Interpreter, event: events.ScoresFilled) -> None:
    """AM203: a fill that leaves the masked keys a weight."""
    # (scores that carry a penalty are masked: a 0 into them resets rows)
    if event.fill.value >= NOT_ZEROING and not event.scores.penalised:
        ev.hit(
            "AM203",
            event.node,
            "a masked score must become -inf (or finfo.min) so its weight is 0; this fill "
            "leaves the masked keys a weight comparable to the others",
        )


@on(events.ZeroPicked)
def _zero_picked(ev: Interpreter, event: events.ZeroPicked) -> None:
    """AM203: torch.where puts a penalty times the mask exactly where the mask is 0."""
    product, name = event.product, event.name
    ev.hit(
        "AM203",
        product,
        f"`{ev.code(product)}` is 0 wherever `{name}` is 0, and torch.where puts it "
        f"exactly there: the masked scores become 0, not a penalty, and keep a weight",
        [(f"what torch.where picks where `{name}` is 0", Origin(event.node, ""))],
    )


@on(events.ConstantTaken)
def _constant_taken(ev: Interpreter, event: events.ConstantTaken) -> None:
    """AM202: a constant float16 cannot hold, given a float16 tensor's dtype."""
    if event.by == "torch.where":
        expects = (
            "torch.where gives a Python number the other tensor's dtype: float16's "
            "largest magnitude is 65504, so this value becomes -inf there"
        )
    else:
        expects = (
            "an index assignment converts the value to the tensor's dtype: float16's largest "
            "magnitude is 65504, so this value becomes -inf there"
        )
    ev.hit("AM202", event.node, expects, overflows=event.const)


@on(events.FillOverflows)
def _fill_overflows(ev: Interpreter, event: events.FillOverflows) -> None:
    """AM202: masked_fill with a constant float16 cannot hold, in attention code."""
    if not event.attention:
        return
    scores = isinstance(event.target, Scores)
    found = ev.hit(
        "AM202",
        event.node,
        "masked_fill converts the fill to the tensor's dtype: float16's largest "
        "magnitude is 65504, so this fill raises there (or overflows to -inf)",
        fix=event.rewrite if scores else None,
        overflows=event.fill,
    )
    if event.rewrite is not None and not scores:
        # safe only if a softmax reads the filled tensor at once (it is floating then, and
        # nothing turns a fully masked row's values into another result)
        ev.fix_candidates[id(event.call)] = (found, event.rewrite)
