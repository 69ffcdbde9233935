"""AM4xx, softmax: where the mask and the softmax meet.

A mask after the softmax, a softmax over the query axis, a softcap that squashes the mask.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review import events, idioms
from attention.review.events import on
from attention.review.ops import normalisation
from attention.review.provenance import (
    Mask,
    Origin,
    Scores,
    Weights,
)
from attention.review.rules import (
    am5_scale,
)
from attention.review.syntax import (
    Arg,
    _inside,
    _short,
)
from attention.review.values import (
    Tensor,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _SCORES
from attention.review.rules._rule import Rule

READS = (
    "The axis a softmax runs along against the axes of the scores (`q @ kᵀ` puts the keys "
    "last; `view`, `transpose` and `permute` are followed), what multiplies or fills the "
    "weights after it, whether they are renormalised, and a softcap applied after the mask."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A softmax over a tensor not shown to come from `q @ kᵀ` (a classifier's logits, a "
    "router's gates); weights zeroed by a tensor that may hold whole rows only "
    "(`m.unsqueeze(-1)`); axes moved by calls it does not read."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM401",
        "mask-after-softmax",
        "error",
        (),
        "The mask is applied to the weights after the softmax and they are not renormalised: "
        "each row then sums to less than 1.",
        "`{subject}` masks the attention weights after the softmax",
        "Mask the scores before the softmax (`scores.masked_fill(~allowed, float('-inf'))`), or "
        "divide by the row sums afterwards.",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-1)\n"
        "    weights = weights.masked_fill(~allowed, 0.0)\n"
        "    return weights @ v\n",
        "import torch\n\n\ndef attend(q, k, v, allowed):\n"
        + _SCORES
        + "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ v\n",
    ),
    Rule(
        "AM402",
        "softmax-over-the-query-axis",
        "error",
        (),
        "The softmax over q @ kᵀ runs along an axis that is not the key axis (the last one): "
        "the weights of each query no longer sum to 1.",
        "`{subject}` is not the key axis of the scores",
        "`softmax(scores, dim=-1)`.",
        "import torch\n\n\ndef attend(q, k, v):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-2)\n    return weights @ v\n",
        "import torch\n\n\ndef attend(q, k, v):\n"
        + _SCORES
        + "    weights = torch.softmax(scores, dim=-1)\n    return weights @ v\n",
    ),
    Rule(
        "AM403",
        "mask-squashed-by-a-softcap",
        "error",
        (),
        "The mask's penalty goes into the scores before a tanh softcap "
        "(`cap * tanh(scores / cap)`): `tanh` maps -inf, or any large negative, to -1, so a "
        "masked key scores `-cap`, a finite score, and keeps a weight.",
        "`{subject}` squashes the mask's penalty into a finite score",
        "Cap the raw scores first, then mask them: `scores = cap * torch.tanh(scores / cap)`, "
        "then `scores.masked_fill(~allowed, float('-inf'))` (or `+ bias`).",
        "import torch\n\n\ndef attend(q, k, v, allowed, cap=50.0):\n"
        + _SCORES
        + "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    scores = cap * torch.tanh(scores / cap)\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import torch\n\n\ndef attend(q, k, v, allowed, cap=50.0):\n"
        + _SCORES
        + "    scores = cap * torch.tanh(scores / cap)\n"
        "    scores = scores.masked_fill(~allowed, float('-inf'))\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
)


def after_softmax(ev: Interpreter, weights: Weights, node: ast.AST, mask: Mask | None) -> Weights:
    """A mask applied to softmax weights: reported only if no renormalisation follows."""
    found = ev.hit(
        "AM401",
        node,
        "a mask belongs on the scores, before the softmax; after it a row no longer sums to 1",
        [("attention weights (softmax output)", weights.origin)]
        + ([(mask.says(), mask.origin)] if mask is not None else []),
    )
    ev.hits.remove(found)
    ev.pending[id(node)] = found
    return Weights(weights.origin, masked_at=Origin(node, ""), unmasked=True)


def size_one_check(ev: Interpreter, subject: Tensor, dim: int | None, at: ast.AST) -> None:
    """AM402: a softmax along an axis of size 1 (every weight is 1)."""
    sizes = subject.sizes
    if sizes is None or dim is None:
        return
    if subject.open == "end":
        # only the last axes are known (an nn.Linear's output of unknown rank)
        if not -len(sizes) <= dim < 0:
            return
        axis = sizes[dim]
    elif subject.open == "start":
        if not 0 <= dim < len(sizes):
            return
        axis = sizes[dim]
    elif -len(sizes) <= dim < len(sizes):
        axis = sizes[dim]
    else:
        return
    if axis.value == 1:
        ev.hit(
            "AM402",
            at,
            "the softmax runs along an axis of size 1, so every weight is 1: the axis of "
            "the positions (keys) is another one",
            [("an axis of size 1", axis.origin)],
        )


def axis_check(
    ev: Interpreter,
    subject: Scores,
    dim: int | None,
    at: ast.AST | Arg,
    *,
    implicit: bool,
    softmax: ast.AST | None = None,
) -> None:
    """AM402: a softmax over an axis other than the scores' last (the keys).

    Not where the weights are then divided by their own sum over the keys: slot attention
    (Locatello et al.) normalises over the queries on purpose, then over the keys; nor for
    one factor of a dual softmax (:func:`~attention.review.idioms.dual_softmax`).  Both are
    looked for only where a finding would be made.
    """
    key = subject.key_at
    last = dim == key or (
        dim is not None and subject.ndim is not None and dim == subject.ndim + key
    )
    facts: list[tuple[str, Origin]]
    if (
        subject.merged is not None
        and (last or (implicit and subject.ndim == 2))
        # a joint softmax over every pair is a matching's, on purpose; heads are attention's
        and am5_scale.multi_head(ev)
    ):
        expects = (
            "each query's weights must sum to 1 over its keys alone; after the key axis was "
            "folded in with other axes, this softmax normalises over them together"
        )
        facts = [("the key axis folded in with others", subject.merged)]
    elif implicit and subject.ndim is not None:
        # torch's deprecated implicit choice: dim 0 for 0-, 1- and 3-D input, else dim 1
        dim = 0 if subject.ndim in (0, 1, 3) else 1
        if dim == subject.ndim + key:
            return
        expects = (
            f"a softmax without dim takes dim={dim} of these {subject.ndim}-D scores; the "
            "key axis of q @ kᵀ is the last one (dim=-1)"
        )
        facts = [(f"scores [..., L, S], {subject.ndim}-D", subject.origin)]
    elif implicit or dim is None:
        return
    elif key != -1:
        if last or (dim >= 0 and subject.ndim is None):
            return
        expects = (
            f"the key axis of these scores is dim={key}: each query's weights over the keys "
            "sum to 1 only along it"
        )
        facts = [(f"scores whose key axis is dim={key}", subject.origin)]
    else:
        wrong = dim < -1 or dim == 0
        if subject.ndim is not None and dim >= 0:
            wrong = dim != subject.ndim - 1
        if not wrong:
            return
        expects = (
            "the key axis of q @ kᵀ is the last one (dim=-1): each query's weights over "
            "the keys sum to 1"
        )
        facts = [("scores [..., L, S]", subject.origin)]
    if normalisation.renormalised_over_keys(ev, at) or (
        softmax is not None and idioms.dual_softmax(ev, softmax)
    ):
        return
    ev.hit("AM402", at, expects, facts)


def late_mask(ev: Interpreter, scores: Scores, node: ast.AST) -> Scores:
    """Scores masked in place after a softmax read them: the weights carry no mask.

    Reported unless a later softmax reads the masked scores.
    """
    found = ev.hit(
        "AM401",
        node,
        "the softmax already read these scores (line of the softmax below): a mask filled "
        "into them afterwards never reaches the weights",
        [("scores read by a softmax", ev.consumed[id(scores)][1])],
    )
    ev.hits.remove(found)
    ev.pending[id(node)] = found
    return dataclasses.replace(scores, masked=True, late=Origin(node, ""))


@on(events.SoftmaxAlong)
def _softmax_along(ev: Interpreter, event: events.SoftmaxAlong) -> None:
    size_one_check(ev, event.subject, event.dim, event.node)


@on(events.ScoresNormalised)
def _scores_normalised(ev: Interpreter, event: events.ScoresNormalised) -> None:
    axis_check(
        ev, event.scores, event.axis, event.node, implicit=event.implicit, softmax=event.softmax
    )


@on(events.ScoresSoftcapped)
def _scores_softcapped(ev: Interpreter, event: events.ScoresSoftcapped) -> None:
    """AM403: the penalty goes into the scores before the softcap that squashes it."""
    penalised = event.scores.penalised
    if penalised is None:
        return
    node = event.node
    expects = (
        "tanh maps the penalty (-inf, or any large negative) to -1, so after the softcap a "
        "masked key scores -cap, a finite score, and keeps a weight"
    )
    site: ast.AST = node
    for function, call in reversed(ev.helper_calls):
        # a helper that caps what it is handed is right for raw scores: the finding goes
        # to the call that hands it penalised ones
        if _inside(penalised.node, function):
            break
        site = call
    if site is not node:
        line = node.lineno  # type: ignore[attr-defined]
        name = next(f.name for f, call in ev.helper_calls if call is site)
        expects += f", in `{name}` (line {line}: `{_short(ev.code(node))}`)"
    ev.hit("AM403", site, expects, [("scores carrying the mask's penalty", penalised)])
