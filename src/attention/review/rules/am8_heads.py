"""AM8xx, heads and layout: ``batch_first`` and the order of batch, heads and positions.

``nn.MultiheadAttention`` given ``[B, T, E]`` where it reads ``[T, B, E]`` (or the reverse), a
mask tiled for the heads in the other order than the scores', and heads split from a
projection before its positions.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import events, head_counts, heads
from attention.review.events import on
from attention.review.provenance import (
    Embedded,
    Mask,
    Origin,
    Scores,
)
from attention.review.roles import _batch_size, _length
from attention.review.syntax import (
    Arg,
    factors,
    int_literal,
)
from attention.review.values import (
    AnyValue,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _SPLIT_CLASS
from attention.review.rules._rule import Rule

READS = (
    "The order of batch, head and position axes of masks and scores (`repeat` against "
    "`repeat_interleave`, `view` and `reshape` of batch and heads), and `batch_first` of "
    "`nn.MultiheadAttention` and Transformer layers against the layout of the tensors given "
    "to them."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "Shapes known only at run time; a layout that depends on the caller; modules built in "
    "another file it cannot read."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM801",
        "multihead-attention-batch-first-mismatch",
        "warning",
        ("mha.attn_mask.bool",),
        "nn.MultiheadAttention (or an nn.Transformer layer) built without batch_first=True reads "
        "[T, B, E] and is given [B, T, E] (an embedding of a tokenizer's input_ids, or of ids "
        "whose sizes the code reads batch first), or the reverse: no error, the batch is "
        "attended as the sequence.",
        "`{subject}` has the batch first, the module reads the sequence first",
        "Build the module with batch_first=True, or transpose the input to [T, B, E].",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, vocab, dim):\n        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab, dim)\n"
        "        self.attn = nn.MultiheadAttention(dim, 4)\n\n"
        "    def forward(self, batch):\n        x = self.embed(batch['input_ids'])\n"
        "        out, _ = self.attn(x, x, x)\n        return out\n",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, vocab, dim):\n        super().__init__()\n"
        "        self.embed = nn.Embedding(vocab, dim)\n"
        "        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)\n\n"
        "    def forward(self, batch):\n        x = self.embed(batch['input_ids'])\n"
        "        out, _ = self.attn(x, x, x)\n        return out\n",
    ),
    Rule(
        "AM802",
        "multihead-attn-mask-tiled-with-repeat",
        "error",
        ("mha.attn_mask.bool",),
        "A [B, L, S] mask is tiled for the heads with repeat(H, 1, 1): nn.MultiheadAttention reads "
        "entry b·H + h, repeat lays out h·B + b, so heads get other batch items' masks.",
        "`{subject}` is tiled with repeat, not repeat_interleave",
        "`mask.repeat_interleave(num_heads, dim=0)` (attention.conventions.allowed_to_mha_attn_mask "
        "does this).",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, dim, heads):\n        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)\n\n"
        "    def forward(self, x, ids, pad_id):\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        out, _ = self.attn(x, x, x, attn_mask=padding.repeat(self.heads, 1, 1))\n"
        "        return out\n",
        "from torch import nn\n\n\nclass Encoder(nn.Module):\n"
        "    def __init__(self, dim, heads):\n        super().__init__()\n"
        "        self.heads = heads\n"
        "        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)\n\n"
        "    def forward(self, x, ids, pad_id):\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        out, _ = self.attn(x, x, x, attn_mask=padding.repeat_interleave(self.heads, dim=0))\n"
        "        return out\n",
    ),
    Rule(
        "AM803",
        "heads-split-before-the-positions",
        "warning",
        (),
        "An nn.Linear's output [B, L, H·d] is viewed as [B, H, L, d] (or [B·H, L, d]) with no "
        "transpose: its memory runs position by position, so each 'head' holds several "
        "positions' slices and each 'position' one slice of a token.",
        "`{subject}` puts the heads before the positions of an nn.Linear's output",
        "`x.view(b, -1, heads, head_dim).transpose(1, 2)` (then `.reshape(b * heads, -1, "
        "head_dim)` for a [B·H, L, d] layout).  A warning: with one position (L = 1) the view "
        "is right.",
        _SPLIT_CLASS + "        q = self.q(x).view(b, self.heads, -1, self.head_dim)\n"
        "        return torch.softmax(q @ q.transpose(-2, -1) / self.head_dim**0.5, -1) @ q\n",
        _SPLIT_CLASS
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        return torch.softmax(q @ q.transpose(-2, -1) / self.head_dim**0.5, -1) @ q\n",
    ),
    Rule(
        "AM804",
        "mask-tiled-against-the-heads",
        "error",
        (),
        "Scores of a [B·H, L, S] layout are masked with a [B, L, S] mask tiled for the heads in "
        "the other order: heads split with `view(B, L, H, d)` then `transpose(1, 2)` and merged give "
        "row b·H + h, which `repeat_interleave(H, dim=0)` matches and `repeat(H, 1, 1)` (row "
        "h·B + b) does not; heads split with `permute(2, 0, 1, 3)` the reverse.  Heads then get "
        "other batch items' masks.",
        "`{subject}` tiles the mask in another order than the scores' heads",
        "Tile the mask as the scores are laid out: `mask.repeat_interleave(H, dim=0)` for "
        "batch-major rows (b·H + h), `mask.repeat(H, 1, 1)` for head-major rows (h·B + b).",
        _SPLIT_CLASS.replace("def forward(self, x):", "def forward(self, x, ids, pad_id):")
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        q = q.reshape(b * self.heads, -1, self.head_dim)\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        scores = torch.bmm(q, q.transpose(1, 2)) / self.head_dim**0.5\n"
        "        scores = scores.masked_fill(padding.repeat(self.heads, 1, 1), float('-inf'))\n"
        "        return torch.softmax(scores, dim=-1)\n",
        _SPLIT_CLASS.replace("def forward(self, x):", "def forward(self, x, ids, pad_id):")
        + "        q = self.q(x).view(b, -1, self.heads, self.head_dim).transpose(1, 2)\n"
        "        q = q.reshape(b * self.heads, -1, self.head_dim)\n"
        "        padding = (ids == pad_id)[:, None, :].expand(-1, ids.size(1), -1)\n"
        "        scores = torch.bmm(q, q.transpose(1, 2)) / self.head_dim**0.5\n"
        "        tiled = padding.repeat_interleave(self.heads, dim=0)\n"
        "        scores = scores.masked_fill(tiled, float('-inf'))\n"
        "        return torch.softmax(scores, dim=-1)\n",
    ),
)


def tiling_check(ev: Interpreter, scores: Scores, mask: Mask) -> None:
    """AM804: a mask tiled for the heads in the other order than the scores' rows."""
    if scores.major == "batch" and mask.repeated is not None:
        tiled, how = mask.repeated, "repeat(H, 1, 1) lays the mask out h·B + b"
    elif scores.major == "head" and mask.interleaved is not None:
        tiled, how = mask.interleaved, "repeat_interleave(H, dim=0) lays it out b·H + h"
    else:
        return
    ev.hit(
        "AM804",
        tiled.node,
        f"the heads were split off and merged so that row {heads.describe(scores.major)} "
        f"holds batch item b, head h; {how}, so heads get other batch items' masks",
        [(f"masked into scores whose rows are {heads.describe(scores.major)}", scores.origin)],
    )


def head_split_check(
    ev: Interpreter, linear: Origin, node: ast.Call, args: list[Arg], values: list[AnyValue | None]
) -> None:
    """AM803: an ``nn.Linear``'s output viewed with the heads before its positions.

    Its memory runs (batch, positions…, heads · head size): ``view(B, H, -1, d)`` or
    ``view(B * H, -1, d)`` with only batch sizes in front of the head count cuts each item's
    positions into H chunks and calls them heads.  Reported where the sizes say so by
    their names: a head count (alone or times a batch size), only batch sizes before it,
    and after it a ``-1`` or a length that is not the last size.
    """
    if len(args) == 1 and isinstance(args[0].value, (ast.Tuple, ast.List)):
        sizes = list(args[0].value.elts)
        known: list[AnyValue | None] = [None] * len(sizes)
    elif all(arg.keyword is None and not arg.star for arg in args):
        sizes = [arg.value for arg in args]
        known = list(values)
    else:
        return
    heads = next((at for at, size in enumerate(sizes) if head_counts.counts(size)), None)
    if heads is None or not all(map(_batch_size, sizes[:heads])):
        return
    if not all(_batch_size(f) or head_counts.counts(f) for f in factors(sizes[heads])):
        return
    positions = next(
        (
            at
            for at in range(heads + 1, len(sizes) - 1)
            if int_literal(sizes[at]) == -1 or _length(sizes[at], known[at])
        ),
        None,
    )
    if positions is None:
        return
    ev.hit(
        "AM803",
        node,
        "an nn.Linear's output runs (batch, positions, heads · head size) in memory: with "
        f"`{ev.code(sizes[positions])}` after the head count, each 'head' is a chunk of "
        "one item's positions, each 'position' one slice of a token",
        [("a view of an nn.Linear's output, whose features are last", linear)],
    )


@on(events.ScoresMasked)
def _scores_masked(ev: Interpreter, event: events.ScoresMasked) -> None:
    tiling_check(ev, event.scores, event.mask)


@on(events.HeadsSplit)
def _heads_split(ev: Interpreter, event: events.HeadsSplit) -> None:
    head_split_check(ev, event.linear, event.node, event.args, event.values)


@on(events.ModuleInput)
def _module_input(ev: Interpreter, event: events.ModuleInput) -> None:
    """AM801: a module built batch first (or not) given its input the other way."""
    module, api, query, first = event.module, event.api, event.query, event.first
    if isinstance(first, Embedded) and not module.batch_first:
        ev.hit(
            "AM801",
            query,
            f"{api} was built without batch_first=True (line of construction below), "
            "so it reads its input as [T, B, E]",
            [
                ("batch first, [B, T, E]", first.origin),
                (f"{api} with batch_first=False", module.origin),
            ],
        )
    elif (
        module.batch_first
        and isinstance(query, ast.Call)
        and isinstance(query.func, ast.Attribute)
        and query.func.attr == "transpose"
        and [int_literal(a.value) for a in ev.args(query)] in ([0, 1], [1, 0])
    ):
        ev.hit(
            "AM801",
            query,
            f"{api} was built with batch_first=True and reads [B, T, E]; the input was "
            "transposed to [T, B, E]",
            [(f"{api} with batch_first=True", module.origin)],
        )
