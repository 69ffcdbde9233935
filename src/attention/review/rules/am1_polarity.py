"""AM1xx, polarity: which value of a mask means may attend.

A mask read with the other meaning of True (may attend / is forbidden), or a Hugging Face
``attention_mask`` (1 = real token) read as the opposite.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import events
from attention.review.events import on
from attention.review.provenance import (
    Mask,
    Origin,
)
from attention.review.rules import (
    am2_fills,
    am3_causal,
    am6_padding,
)
from attention.review.syntax import (
    Arg,
    _short,
    last_axis_added,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _MHA_CLASS, _SCORES, _SDPA_HEAD
from attention.review.rules._rule import Rule

READS = (
    "What the mask argument of each API means (its row: True = may attend, True = masked out,"
    " or added to the scores) against what the code shows of the mask that reaches it: how it"
    " was built (a comparison, a triangle, `~`, `logical_not`, `== 0`), what `masked_fill` or"
    " `torch.where` does with it, and, for a warning only, its name."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A mask whose meaning the code does not show: a parameter with no telling name, a value "
    "made in another package or by a function it cannot read. A Hugging Face `attention_mask`"
    " handed to `masked_fill` as it is inside an attention layer, where it may already be the"
    " expanded mask of either meaning."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM101",
        "forbidden-mask-read-as-allowed",
        "error",
        ("sdpa.attn_mask.bool", "flex_attention.mask_mod", "mha.attn_mask.bool"),
        "A mask that is True where attention is forbidden (padding, the future) goes where True "
        "means may attend: every query reads exactly the keys it must not.",
        "`{subject}` is True where attention is forbidden, but it is read as True = may attend",
        "Flip it where it is passed (`~mask`), or build the allowed mask directly "
        "(`ids != PAD`, `torch.tril(...)`); attention.conventions.forbidden_to_allowed converts.",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    future = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=future)\n",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    causal = torch.tril(torch.ones(L, L, dtype=torch.bool))\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=causal)\n",
    ),
    Rule(
        "AM102",
        "allowed-mask-read-as-forbidden",
        "error",
        (
            "mha.key_padding_mask.bool",
            "mha.attn_mask.bool",
            "transformer_encoder_layer.src_key_padding_mask.bool",
        ),
        "A mask that is True where attention is allowed (real tokens, the past) goes where True "
        "means masked out (nn.MultiheadAttention, nn.Transformer*, masked_fill(mask, -inf)).",
        "`{subject}` is True where attention is allowed, but it is read as True = masked out",
        "Pass the forbidden mask (`ids == PAD`, `~allowed`); "
        "attention.conventions.allowed_to_mha_key_padding_mask converts.",
        _MHA_CLASS.replace("(self):", "(self):", 1)
        + "    def forward(self, x, ids, pad_id):\n        real = ids != pad_id\n"
        "        out, _ = self.attn(x, x, x, key_padding_mask=real)\n        return out\n",
        _MHA_CLASS + "    def forward(self, x, ids, pad_id):\n        padding = ids == pad_id\n"
        "        out, _ = self.attn(x, x, x, key_padding_mask=padding)\n        return out\n",
    ),
    Rule(
        "AM103",
        "hf-attention-mask-read-as-forbidden",
        "warning",
        (
            "transformers.attention_mask",
            "mha.key_padding_mask.bool",
            "transformer_encoder_layer.src_key_padding_mask.bool",
        ),
        "A Hugging Face `attention_mask` (1 = real token, 0 = padding) goes where True means "
        "masked out: only the padding is attended to.",
        "`{subject}` looks like a Hugging Face attention_mask (1 = real token), read here as "
        "True = masked out",
        "Pass `attention_mask == 0` (True = padding).",
        _MHA_CLASS + "    def forward(self, x, attention_mask):\n"
        "        out, _ = self.attn(x, x, x, key_padding_mask=attention_mask)\n"
        "        return out\n",
        _MHA_CLASS + "    def forward(self, x, attention_mask):\n"
        "        out, _ = self.attn(x, x, x, key_padding_mask=attention_mask == 0)\n"
        "        return out\n",
    ),
    Rule(
        "AM104",
        "hf-attention-mask-as-bias-over-real-tokens",
        "warning",
        ("transformers.attention_mask", "sdpa.attn_mask.float", "mha.attn_mask.float"),
        "A Hugging Face `attention_mask` (1 = real token) is turned into a penalty as it is "
        "(`attention_mask * -10000.0`, a fill where it is True): the penalty lands on the real "
        "tokens and the padding stays readable.",
        "`{subject}` looks like a Hugging Face attention_mask (1 = real token), turned into a "
        "bias that penalises the real tokens",
        "Penalise the padding: `(1 - attention_mask) * torch.finfo(dtype).min`, or convert with "
        "attention.conventions.hf_attention_mask_to_allowed first.",
        "import torch\n\n\ndef scores_with_padding(q, k, attention_mask):\n"
        + _SCORES
        + "    bias = attention_mask[:, None, None, :] * -10000.0\n"
        "    return torch.softmax(scores + bias, dim=-1)\n",
        "import torch\n\n\ndef scores_with_padding(q, k, attention_mask):\n"
        + _SCORES
        + "    bias = (1 - attention_mask[:, None, None, :]) * -10000.0\n"
        "    return torch.softmax(scores + bias, dim=-1)\n",
    ),
    Rule(
        "AM105",
        "mask-name-says-the-other-convention",
        "warning",
        ("sdpa.attn_mask.bool", "mha.attn_mask.bool", "mha.key_padding_mask.bool"),
        "A mask whose name says its convention (`key_padding_mask`, `pad_mask`: True = padding; "
        "`allowed`: True = may attend) goes where the other convention is read.",
        "`{subject}` is named as a mask of one convention and passed where the other is read",
        "Convert where it is passed (`~key_padding_mask`), or rename it if the name is wrong.",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, key_padding_mask):\n"
        "    allowed = ~key_padding_mask[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=key_padding_mask[:, None, None, :])\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, key_padding_mask):\n"
        "    allowed = ~key_padding_mask[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
    ),
)


def fact(ev: Interpreter, mask: Mask) -> tuple[str, Origin]:
    """What a mask is and where that came from, for a finding."""
    return (mask.says(), mask.origin)


def sink_text(ev: Interpreter, node: ast.AST | Arg) -> str:
    """The short text of the expression a mask is passed as."""
    return _short(ev.code(node.value if isinstance(node, Arg) else node))


def allowed_sink(ev: Interpreter, mask: Mask, node: ast.AST | Arg, api: str) -> None:
    """A mask where True means may attend (SDPA, the package's own API)."""
    reads = f"{api} reads a Boolean mask as True = may attend"
    if mask.kind == "additive":
        penalty_triangle(ev, mask, node, f"{api} adds this mask to the scores")
        return
    if mask.dtype == "float":
        am2_fills.additive_sink(ev, mask, node, f"{api} adds a floating-point mask to the scores")
        return
    if mask.dtype == "int":
        return
    if mask.true_set is not None:
        am3_causal.triangle_check(ev, mask.true_set, mask, node, reads, "AM101")
        return
    if mask.meaning == "forbidden":
        ev.hit("AM105" if mask.by_name else "AM101", node, reads, [fact(ev, mask)])
        return
    am6_padding.layout_check(ev, mask, node, api, scores=True)


def forbidden_sink(ev: Interpreter, mask: Mask, node: ast.AST | Arg, api: str) -> None:
    """A mask where True means masked out (MHA, the Transformer modules)."""
    reads = f"{api} reads a Boolean mask as True = masked out"
    if mask.repeated is not None:
        where: ast.AST | Arg = node
        at = api
        sink = node.value if isinstance(node, Arg) else node
        if mask.repeated.node is not sink:
            # the repeat is what needs changing (to repeat_interleave)
            at = f"{api} (`{sink_text(ev, node)}`)"
            where = mask.repeated.node
        ev.hit(
            "AM802",
            where,
            f"{at} reads a 3-D attn_mask as [B·H, L, S], entry b·H + h; repeat(H, 1, 1) "
            "lays it out h·B + b, so heads get other batch items' masks",
            [("a [B, L, S] mask tiled with repeat", mask.repeated)],
        )
    if mask.kind == "additive":
        penalty_triangle(ev, mask, node, f"{api} adds this mask to the scores")
        return
    if mask.dtype == "float" and not mask.hf:
        am2_fills.additive_sink(ev, mask, node, f"{api} adds a floating-point mask to the scores")
        return
    polarity_forbidden(ev, mask, node, reads, hf_code="AM103")
    am6_padding.layout_check(ev, mask, node, api, scores=True)


def penalty_sink(
    ev: Interpreter,
    mask: Mask,
    node: ast.AST | Arg,
    reads: str,
    *,
    layout: bool = True,
    finite: bool = False,
    scores: bool = False,
) -> None:
    """A mask whose True entries get the penalty (``masked_fill``, ``* -inf``).

    ``layout``: whether the filled tensor is known to be scores or a bias built for them,
    so where the mask's keys lie matters (hidden states masked per position before a
    pooling take ``m[..., None]`` rightly).  ``scores``: known to be ``q @ kᵀ``.
    """
    if mask.dtype == "float" and mask.hf and not mask.by_name:
        return
    if (
        mask.by_name
        and mask.hf
        and mask.dtype == "int"
        and "masked_fill" in reads
        and not last_axis_added(node.value if isinstance(node, Arg) else node)
    ):
        # masked_fill takes Boolean masks only (an integer one raises): what is passed as it
        # is here is not the integer mask its name suggests -- unless the code gives it one
        # axis per position of the tensor it fills (`m.unsqueeze(-1)` over hidden states),
        # the token mask its name says, whose 1 marks a real token
        return
    polarity_forbidden(ev, mask, node, reads, hf_code="AM104")
    if layout:
        am6_padding.layout_check(ev, mask, node, reads, finite=finite, scores=scores)


def polarity_forbidden(
    ev: Interpreter, mask: Mask, node: ast.AST | Arg, reads: str, hf_code: str
) -> None:
    """A mask read as True = masked out: its polarity and triangle."""
    if mask.true_set is not None:
        am3_causal.triangle_check(ev, mask.true_set.complement(), mask, node, reads, "AM102")
        return
    if mask.meaning != "allowed":
        return
    if mask.hf and mask.by_name:
        ev.hit(hf_code, node, reads, [fact(ev, mask)])
    elif mask.by_name:
        ev.hit("AM105", node, reads, [fact(ev, mask)])
    else:
        ev.hit("AM102", node, reads, [fact(ev, mask)])


def penalty_triangle(ev: Interpreter, mask: Mask, node: ast.AST | Arg, reads: str) -> None:
    """An additive mask whose penalties form a triangle: the keys it leaves allowed."""
    if mask.kind == "additive" and mask.true_set is not None:
        am3_causal.triangle_check(
            ev, mask.true_set.complement(), mask, node, f"{reads} (-inf where it is set)", "AM101"
        )


@on(events.MaskAtApi)
def _mask_at_api(ev: Interpreter, event: events.MaskAtApi) -> None:
    if event.mask.additive_when is not None:
        return  # Boolean or additive by a setting the code does not show: its meaning too
    sink = allowed_sink if event.convention == "allowed" else forbidden_sink
    with ev.cited(event.rows):
        sink(ev, event.mask, event.node, event.api)


@on(events.PenaltyWhereTrue)
def _penalty_where_true(ev: Interpreter, event: events.PenaltyWhereTrue) -> None:
    if event.mask.additive_when is not None:
        return  # Boolean or additive by a setting the code does not show: its meaning too
    penalty_sink(
        ev,
        event.mask,
        event.node,
        event.reads,
        layout=event.layout,
        finite=event.finite,
        scores=event.scores,
    )
