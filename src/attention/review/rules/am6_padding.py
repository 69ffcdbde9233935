"""AM6xx, padding rows: queries and rows of the scores with no key to attend to.

A padding mask on the query axis, padded queries left with no key, a row whose every key is masked.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import events
from attention.review.events import on
from attention.review.ops.positions import PAIRWISE
from attention.review.provenance import (
    Mask,
    Weights,
)
from attention.review.rules import (
    am1_polarity,
)
from attention.review.syntax import (
    Arg,
    _pair_side,
    _pair_sides,
    _short,
)
from attention.review.values import Hit

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _ROW_BIAS
from attention.review.rules._rule import Rule

READS = (
    "Which axis a padding mask varies along after `unsqueeze`, indexing and `view`, against "
    "the query and key axes of the scores; query rows left with no allowed key."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A mask of unknown rank; rows emptied by values only known at run time (the runtime watch"
    " sees those)."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM601",
        "padding-mask-on-the-query-axis",
        "error",
        (
            "sdpa.fully_masked_row",
            "mha.fully_masked_row.need_weights_true",
            "softmax.all_neg_inf_row",
        ),
        "A key-padding mask [B, S] is broadcast along the query axis ([B, 1, S, 1]) instead of "
        "the key axis: padded queries lose every key, real queries read the padding.",
        "`{subject}` puts the key-padding axis on the query axis",
        "Index so the key axis stays last: `mask[:, None, None, :]` ([B, 1, 1, S]).",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    allowed = (ids != pad_id)[:, None, :, None]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    allowed = (ids != pad_id)[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
    ),
    Rule(
        "AM602",
        "padded-queries-have-no-key",
        "warning",
        (
            "sdpa.fully_masked_row",
            "softmax.all_neg_inf_row",
            "mha.fully_masked_row.need_weights_true",
            "sdpa.fully_masked_row.grad",
        ),
        "A padding mask is applied on the query axis as well as the key axis: a padded query's "
        "row has no allowed key, and what the API returns for it (NaN, zeros) is not defined by "
        "the mask.",
        "`{subject}` leaves padded queries' rows with no allowed key",
        "Mask keys only (`real[:, None, :]`) and drop padded queries from the loss, or give each "
        "row at least one key.",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    real = ids != pad_id\n    allowed = real[:, :, None] & real[:, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    real = ids != pad_id\n    allowed = real[:, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])\n",
    ),
    Rule(
        "AM603",
        "softmax-of-a-row-with-no-allowed-key",
        "error",
        ("softmax.all_neg_inf_row",),
        "The mask is built with a query row that allows no key (every key forbidden, or -inf "
        "in the whole row) and a plain softmax reads it: 0/0, so that query's weights, its "
        "output and every gradient through them are NaN.",
        "`{subject}` reads a row with no allowed key: its weights are NaN",
        "Give every query at least one key, or flush the NaN rows after the softmax "
        "(`torch.where(w.isnan(), 0.0, w)`), or fill with `torch.finfo(dtype).min` instead of "
        "-inf (the row's weights are then uniform, not NaN).",
        _ROW_BIAS + "    return scores.softmax(dim=-1) @ v\n",
        _ROW_BIAS + "    weights = scores.softmax(dim=-1)\n"
        "    return torch.where(weights.isnan(), 0.0, weights) @ v\n",
    ),
)


def pair_rows_zeroed(ev: Interpreter, condition: ast.AST, weights: Weights) -> bool:
    """Whether ``condition`` picks the rows a pairwise mask left with no key.

    ``~valid[..., None]`` after ``valid[..., :, None] & valid[..., None, :]``: the padded
    queries, on the query axis, which a fill of 0 then flushes.
    """
    if weights.nan_at is None:
        return False
    pending = ev.pending.get(id(weights.nan_at.node))
    pair = pending.node if pending is not None and pending.code == "AM602" else None
    if not (isinstance(pair, ast.BinOp) and isinstance(pair.op, ast.BitAnd)):
        return False
    sides = _pair_sides(pair.left, pair.right, None)
    bases = {side[0] for side in sides if side is not None}
    picked = _pair_side(condition)
    return len(bases) == 1 and picked == (f"~{next(iter(bases))}", "query")


def layout_check(
    ev: Interpreter,
    mask: Mask,
    node: ast.AST | Arg,
    api: str,
    *,
    finite: bool = False,
    scores: bool = False,
) -> None:
    """A padding mask whose key axis is not last, or padding on both axes.

    ``finite``: the mask fills with a finite penalty (``finfo.min``), so a padded query's
    row is uniform, not NaN: padding on both axes is then no finding.  ``scores``: the
    mask reaches attention scores or an attention API for certain, so a mask known by
    its name whose keys ``unsqueeze(-1)`` moved is judged (pooling scores ``[B, S, 1]``
    take ``mask.unsqueeze(-1)`` rightly).
    """
    moved = mask.moved_at is not None and scores
    if mask.key_padding and not mask.key_last and (not mask.by_name or mask.rank_shown or moved):
        sink = node.value if isinstance(node, Arg) else node
        facts = [am1_polarity.fact(ev, mask)]
        if mask.rank_shown is not None:
            facts = [
                (
                    f"a [B, S] mask whose last axis moved to the queries: {mask.ndim} axes "
                    "here, which only a mask of two axes gets from this subscript",
                    mask.rank_shown,
                )
            ]
        if mask.moved_at is not None and mask.moved_at.node is not sink:
            # the unsqueeze that put the keys on the query axis is what needs changing
            api = f"{api} (`{am1_polarity.sink_text(ev, node)}`)"
            node = mask.moved_at.node
        ev.hit(
            "AM601",
            node,
            f"{api} broadcasts a padding mask over the queries only when its key axis is "
            "last ([B, 1, 1, S] or [B, 1, S]); here it lies on the query axis, so padded "
            "queries' rows have no allowed key",
            facts,
        )
    elif mask.query_and_key is not None and not finite:
        ev.hit(
            "AM602",
            node,
            f"{api}: a padded query's row then has no allowed key, whose result is NaN "
            "(softmax, MHA with weights) or zeros (SDPA, verified on the CPU; NaN has been "
            "reported on CUDA)",
            [("padding on both the query and the key axis", mask.query_and_key)],
        )


@on(events.MaskRanked)
def _mask_ranked(ev: Interpreter, event: events.MaskRanked) -> None:
    layout_check(ev, event.mask, event.node, event.api, finite=event.finite, scores=event.scores)


@on(events.ScoresNormalised)
def _row_with_no_key(ev: Interpreter, event: events.ScoresNormalised) -> None:
    """AM602 / AM603: a softmax of a row that is all -inf, reported unless a guard follows."""
    subject, node = event.scores, event.softmax
    if subject.empty_row is None or node is None:
        return
    if subject.empty_row.reason == PAIRWISE:
        # reported where the mask is built (what needs changing), unless a guard flushes
        # the NaN weights
        at = subject.empty_row.node
        ev.pending[id(node)] = Hit(
            "AM602",
            at,
            ev.code(at),
            f"a padded query's row is all -inf, and the softmax of it (line "
            f"{node.lineno}: `{_short(ev.code(node))}`) is 0/0, NaN",  # type: ignore[attr-defined]
            (("padding on both the query and the key axis", subject.empty_row),),
        )
    else:
        ev.pending[id(node)] = Hit(
            "AM603",
            node,
            ev.code(node),
            "a softmax of a row that is all -inf is 0/0, NaN: that query's output is NaN "
            "(and so is every gradient that reads it)",
            (("a softmax of scores whose mask leaves a query row no key", subject.empty_row),),
        )
