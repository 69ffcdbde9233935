"""AM5xx, scale: the scores' scale, missing, taken from the model width, or inverted."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from attention.review import events, head_counts
from attention.review.events import on
from attention.review.provenance import (
    Scale,
    Weights,
)
from attention.review.sinks import (
    HEAD_NAMES,
    SCALE_WORDS,
)
from attention.review.syntax import (
    _short,
    factors,
    identifiers,
    last_name,
)
from attention.review.values import (
    AnyValue,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._rule import Rule

READS = (
    "The scale as an expression (a root, a power, a division, a constant) against the size of"
    " the query's last axis as an expression (`d_model // num_heads`, `head_dim`), and how "
    "many times the scores are divided."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A scale from a configuration value whose relation to the query's size the code does not "
    "show; a learned temperature; a scale passed in by the caller."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM501",
        "missing-scale",
        "warning",
        ("sdpa.scale.default", "mha.scale.default"),
        "The scores reach the softmax unscaled: with a head size of 64 the softmax saturates "
        "(a warning: the scale may be folded into the projection weights).  Only in code that "
        "names a head count: single-head dot-product attention (Luong's) is unscaled by design.",
        "`{subject}` takes scores that were never scaled",
        "Divide by √(head size): `scores / math.sqrt(q.size(-1))`, as SDPA does by default.",
        "import torch\n\n\ndef attend(x, w_qkv, num_heads):\n    b, t, _ = x.shape\n"
        "    q, k, v = (x @ w_qkv).view(b, t, 3, num_heads, -1).permute(2, 0, 3, 1, 4)\n"
        "    scores = q @ k.transpose(-2, -1)\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
        "import math\n\nimport torch\n\n\ndef attend(x, w_qkv, num_heads):\n    b, t, _ = x.shape\n"
        "    q, k, v = (x @ w_qkv).view(b, t, 3, num_heads, -1).permute(2, 0, 3, 1, 4)\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
        "    return torch.softmax(scores, dim=-1) @ v\n",
    ),
    Rule(
        "AM502",
        "scale-from-model-width",
        "warning",
        ("sdpa.scale.default", "mha.scale.default"),
        "The scale is built from the model width or the head count instead of the head size "
        "(by the names it uses): the softmax is too flat by √num_heads.",
        "`{subject}` scales by a model width or head count, not the head size",
        "Use the head size: `dim_head ** -0.5` (= (d_model // num_heads) ** -0.5).",
        "import torch\nfrom torch import nn\n\n\nclass Attention(nn.Module):\n"
        "    def __init__(self, dim, heads=8, dim_head=64):\n        super().__init__()\n"
        "        self.heads = heads\n        self.scale = dim ** -0.5\n\n"
        "    def forward(self, q, k, v):\n"
        "        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale\n"
        "        return dots.softmax(dim=-1) @ v\n",
        "import torch\nfrom torch import nn\n\n\nclass Attention(nn.Module):\n"
        "    def __init__(self, dim, heads=8, dim_head=64):\n        super().__init__()\n"
        "        self.heads = heads\n        self.scale = dim_head ** -0.5\n\n"
        "    def forward(self, q, k, v):\n"
        "        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale\n"
        "        return dots.softmax(dim=-1) @ v\n",
    ),
    Rule(
        "AM503",
        "scale-inverted",
        "error",
        ("sdpa.scale.default",),
        "The scores are multiplied by √d (or divided by 1/√d) instead of divided by it: the "
        "softmax sharpens instead of being tempered.",
        "`{subject}` is √d where the scale is 1/√d",
        "`scale=1 / math.sqrt(head_size)`; or leave scale=None (SDPA's default).",
        "import math\n\nimport torch.nn.functional as F\n\n\ndef attend(q, k, v):\n"
        "    return F.scaled_dot_product_attention(q, k, v, scale=math.sqrt(q.size(-1)))\n",
        "import math\n\nimport torch.nn.functional as F\n\n\ndef attend(q, k, v):\n"
        "    return F.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(q.size(-1)))\n",
    ),
    Rule(
        "AM504",
        "scaled-twice",
        "error",
        ("sdpa.scale.default",),
        "Scores already divided by √d are divided by it again: the softmax is tempered by d "
        "instead of √d, and its weights are flatter than the model was trained with.",
        "`{subject}` scales scores that were already divided by √d",
        "Scale once: keep one division by `math.sqrt(head_size)` (or SDPA's default scale).",
        "import math\n\nimport torch\n\n\ndef attend(q, k, v):\n    d = q.size(-1)\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n"
        "    weights = torch.softmax(scores / math.sqrt(d), dim=-1)\n    return weights @ v\n",
        "import math\n\nimport torch\n\n\ndef attend(q, k, v):\n    d = q.size(-1)\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(d)\n"
        "    weights = torch.softmax(scores, dim=-1)\n    return weights @ v\n",
    ),
)


def scaled_weights(ev: Interpreter, weights: Weights, node: ast.AST) -> Weights:
    """AM501: the scale applied to the weights, after a softmax of unscaled scores."""
    if weights.unscaled:
        ev.hit(
            "AM501",
            node,
            "scores are divided by √(head size) before the softmax; scaling its output "
            "instead leaves the softmax unscaled and its rows no longer sum to 1",
            [("the softmax of unscaled scores", weights.origin)],
        )
    return dataclasses.replace(weights, unscaled=False)


def multi_head(ev: Interpreter) -> bool:
    """Whether the code around names a head count or size: a scale from the width is wrong.

    Identifiers only, so a comment ("single-head attention") proves nothing.
    """
    node: ast.AST = (
        ev.classes[-1] if ev.classes else ev.functions[-1] if ev.functions else None
    ) or ev.source.tree
    key = id(node)
    found = ev.heads.get(key)
    if found is None:
        found = ev.heads[key] = not HEAD_NAMES.isdisjoint(identifiers(node))
    return found


def per_head(ev: Interpreter, width: str) -> bool:
    """Whether the code multiplies ``width`` by a head count: then it is the head size.

    ``nn.Linear(in_dim, hidden_dim * num_heads)``: ``hidden_dim`` is each head's size.
    """
    node: ast.AST = (
        ev.classes[-1] if ev.classes else ev.functions[-1] if ev.functions else None
    ) or ev.source.tree
    name = width.rsplit(".", 1)[-1]
    for product in ast.walk(node):
        if isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult):
            parts = factors(product)
            # another factor counts the heads (`batch * num_heads` does not make the head
            # count a head size)
            if name in map(last_name, parts) and any(
                head_counts.counts(f) and last_name(f) != name for f in parts
            ):
                return True
    return False


def names_a_scale(ev: Interpreter) -> bool:
    """Whether the function being read names a scale anywhere."""
    function = ev.functions[-1] if ev.functions else None
    if function is None:
        return False
    key = id(function)
    if key not in ev.scaled_functions:
        text = ev.code(function).lower()
        ev.scaled_functions[key] = any(word in text for word in SCALE_WORDS)
    return ev.scaled_functions[key]


def scale_check(
    ev: Interpreter,
    scale: AnyValue | None,
    node: ast.AST,
    *,
    divide: bool,
    parted: bool | None = None,
) -> None:
    """A scale of the wrong power, or built from the width in multi-head code."""
    if not isinstance(scale, Scale):
        return
    if scale.inverted != divide:
        how = "multiplies the scores by" if scale.inverted else "divides the scores by"
        ev.hit(
            "AM503",
            node,
            f"the scale is 1/√(head size); this {how} the wrong power of it",
            [("√d" if scale.inverted else "1/√d", scale.origin)],
        )
    elif (
        scale.width is not None
        and parted is not False
        and multi_head(ev)
        and not per_head(ev, scale.width)
    ):
        # reported where the scale is computed, which is what needs changing
        ev.hit(
            "AM502",
            scale.origin.node,
            f"the scale is 1/√(head size) = 1/√(d_model / num_heads), not the model width or "
            f"the head count (used on line {node.lineno}: `{_short(ev.code(node))}`)",  # type: ignore[attr-defined]
            [(f"built from `{scale.width}`", scale.origin)],
        )


@on(events.ScoresScaled)
def _scores_scaled(ev: Interpreter, event: events.ScoresScaled) -> None:
    scale_check(ev, event.scale, event.node, divide=event.divide, parted=event.parted)


@on(events.ScoresScaled)
def _scaled_twice(ev: Interpreter, event: events.ScoresScaled) -> None:
    """AM504: scores that a root or power of d already scaled, scaled by one again."""
    scale, earlier = event.scale, event.scores.scaled_by if event.scores is not None else None
    if earlier is None or not isinstance(scale, Scale) or scale.inverted != event.divide:
        return  # the wrong power is AM503's
    if not isinstance(scale.origin.node, (ast.Call, ast.BinOp)):
        return  # a scale known by its name only may be a learned temperature
    ev.hit(
        "AM504",
        event.node,
        "the scores are divided by √(head size) once; divided again, the softmax is "
        "tempered by d instead of √d",
        [("a second √d: the first divided the scores", earlier.origin)],
    )


def enclosing_text(ev: Interpreter) -> str:
    """The source of the innermost class, else function, else module being read."""
    if not ev.classes and not ev.functions:
        return ev.source.text
    node: ast.AST = ev.classes[-1] if ev.classes else ev.functions[-1]
    key = id(node)
    if key not in ev.texts:
        ev.texts[key] = ev.code(node)
    return ev.texts[key]


@on(events.ScoresNormalised)
def _unscaled(ev: Interpreter, event: events.ScoresNormalised) -> None:
    """AM501: scores a softmax reads with no scale, in code that names heads."""
    subject = event.scores
    if (
        event.softmax is not None
        and not subject.scaled
        # a learned position bias (T5's) is trained with unscaled scores, by design
        and not subject.biased
        # without heads, unscaled dot-product scores are a design (Luong's attention);
        # scores [B, H, L, S] have heads
        and (multi_head(ev) or subject.ndim == 4)
        and not names_a_scale(ev)
        and not any(word in enclosing_text(ev).lower() for word in SCALE_WORDS)
    ):
        ev.hit(
            "AM501",
            event.softmax,
            "scores are divided by √(head size) before the softmax (SDPA's default scale)",
            [("unscaled scores q @ kᵀ", subject.origin)],
        )
