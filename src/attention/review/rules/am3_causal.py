"""AM3xx, causal masks: ``is_causal`` and the causal triangle.

The triangle's direction, its diagonal, and its alignment when queries and keys differ in length.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import apis, events
from attention.review.events import on
from attention.review.ops import triangles
from attention.review.provenance import (
    CAUSAL,
    KeyCat,
    Mask,
    Origin,
    Triangle,
)
from attention.review.rules import (
    am1_polarity,
)
from attention.review.syntax import (
    Arg,
    is_false,
    is_none,
    is_true,
)
from attention.review.values import (
    AnyValue,
    Dim,
    Tensor,
)

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _SDPA_HEAD
from attention.review.rules._rule import Rule

READS = (
    "The triangle a mask holds (`tril` / `triu` and their diagonal, position comparisons such"
    " as `i >= j`), the query and key lengths as expressions (a cache prepended to the keys "
    "makes S = past + L), `is_causal` against the API row's alignment, and a local window's "
    "size where it is handed to an API that does not count the query's own key (flash-attn's "
    "`window_size`), against the setting it is read from when that setting's row says it counts "
    "it (transformers' `sliding_window`)."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "Lengths the code does not relate to each other; a mask built in another package; a "
    "decode step it cannot tell from a prefill; a window size read from a setting no row says "
    "how it counts."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
    Rule(
        "AM301",
        "is-causal-with-attn-mask",
        "error",
        ("sdpa.is_causal_with_attn_mask", "sdpa.is_causal_with_attn_mask.math"),
        "is_causal=True together with an attn_mask: SDPA raises on some releases and backends, "
        "and where it does not, one of the two is not applied.",
        "`{subject}` is passed together with an attn_mask",
        "Pass one: fold the causal triangle into the mask (`allowed & torch.tril(...)`) and drop "
        "is_causal, or drop the mask.",
        _SDPA_HEAD + "\ndef attend(q, k, v, allowed):\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, is_causal=True)\n",
        _SDPA_HEAD + "\ndef attend(q, k, v, allowed):\n"
        "    causal = torch.tril(torch.ones(q.size(-2), k.size(-2), dtype=torch.bool))\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed & causal)\n",
    ),
    Rule(
        "AM302",
        "is-causal-on-a-decode-step",
        "error",
        (
            "sdpa.is_causal.alignment",
            "sdpa.is_causal.decode_step",
            "bias.causal_lower_right.alignment",
        ),
        "is_causal=True with fewer queries than keys (a decode step with a KV cache): SDPA's "
        "triangle is aligned to the top left, so the new query sees key 0 only.",
        "`{subject}` with keys longer than the queries (a cache was prepended)",
        "A single new query may see every cached key: drop is_causal for L = 1, or pass "
        "torch.nn.attention.bias.causal_lower_right(L, S) as attn_mask.",
        _SDPA_HEAD + "\ndef decode_step(q, k, v, past_k, past_v):\n"
        "    k = torch.cat([past_k, k], dim=-2)\n    v = torch.cat([past_v, v], dim=-2)\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n",
        _SDPA_HEAD + "\ndef decode_step(q, k, v, past_k, past_v):\n"
        "    k = torch.cat([past_k, k], dim=-2)\n    v = torch.cat([past_v, v], dim=-2)\n"
        "    return F.scaled_dot_product_attention(q, k, v)  # one new query sees every key\n",
    ),
    Rule(
        "AM303",
        "causal-mask-wrong-triangle",
        "error",
        (
            "transformer.generate_square_subsequent_mask",
            "sdpa.attn_mask.bool",
            "sdpa.fully_masked_row",
        ),
        "A causal mask with the wrong orientation or diagonal: queries see the next token, or "
        "not themselves (then the first row has no allowed key).",
        "`{subject}` is a triangle that is not the causal one as this API reads it",
        "Allowed = `torch.tril(ones)` (diagonal 0); forbidden = `torch.triu(ones, diagonal=1)`.",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    allowed = torch.tril(torch.ones(L, L, dtype=torch.bool), diagonal=-1)\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n    L = q.size(-2)\n"
        "    allowed = torch.tril(torch.ones(L, L, dtype=torch.bool))\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
    ),
    Rule(
        "AM304",
        "is-causal-where-a-cache-may-be-prepended",
        "warning",
        (
            "sdpa.is_causal.alignment",
            "sdpa.is_causal.decode_step",
            "bias.causal_lower_right.alignment",
        ),
        "is_causal=True where the keys hold a cache on some of the paths to the call: there "
        "SDPA's top-left triangle lets query i see keys 0..i only (a warning: the cached path "
        "may never run with is_causal=True).",
        "`{subject}` where the keys may have a cache prepended",
        "Pass is_causal=True only where L = S (`is_causal=cache is None`), or pass "
        "torch.nn.attention.bias.causal_lower_right(L, S) as attn_mask.",
        _SDPA_HEAD + "\ndef attend(q, k, v, cache=None):\n"
        "    if cache is not None:\n"
        "        k = torch.cat([cache[0], k], dim=-2)\n"
        "        v = torch.cat([cache[1], v], dim=-2)\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n",
        _SDPA_HEAD + "\ndef attend(q, k, v, cache=None):\n"
        "    if cache is not None:\n"
        "        k = torch.cat([cache[0], k], dim=-2)\n"
        "        v = torch.cat([cache[1], v], dim=-2)\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=cache is None)\n",
    ),
    Rule(
        "AM305",
        "causal-triangle-aligned-top-left",
        "warning",
        (
            "bias.causal_upper_left.alignment",
            "bias.causal_lower_right.alignment",
            "sdpa.is_causal.alignment",
        ),
        "A causal triangle (tril, diagonal 0) is laid on L × S sizes read from the queries and "
        "the keys, and the code runs it with fewer queries than keys (a cache): aligned to the "
        "top left, query i sees keys 0..i only instead of the whole past.",
        "`{subject}` aligns the causal triangle to the top left of L × S",
        "Align it to the bottom right: `.tril(diagonal=S - L)`, or "
        "torch.nn.attention.bias.causal_lower_right(L, S).",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n"
        "    allowed = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n\n\n"
        "q = torch.randn(1, 2, 2, 8)  # two new tokens\n"
        "k = v = torch.randn(1, 2, 6, 8)  # four cached keys and the two new ones\n"
        "out = attend(q, k, v)\n",
        _SDPA_HEAD + "\ndef attend(q, k, v):\n"
        "    L, S = q.size(-2), k.size(-2)\n"
        "    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n\n\n"
        "q = torch.randn(1, 2, 2, 8)  # two new tokens\n"
        "k = v = torch.randn(1, 2, 6, 8)  # four cached keys and the two new ones\n"
        "out = attend(q, k, v)\n",
    ),
    Rule(
        "AM306",
        "is-causal-hint-without-its-causal-mask",
        "error",
        (
            "mha.attn_mask.with_is_causal.need_weights_false",
            "mha.is_causal.without_attn_mask",
            "mha.is_causal.without_attn_mask.fast_path",
        ),
        "is_causal=True on nn.MultiheadAttention or an nn.Transformer* module is a hint that the "
        "mask passed with it is the causal triangle, not a switch: with no mask the call raises "
        "(or, on the inference fast path, drops the hint), and beside a mask that is not causal "
        "the mask is dropped and the triangle used instead.",
        "`{subject}` vouches for a causal mask that is not there",
        "Pass the causal mask itself (`nn.Transformer.generate_square_subsequent_mask(L)`, merged "
        "with any other mask) and set the hint only when that mask is exactly causal.",
        "import torch\nfrom torch import nn\n\n"
        "mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)\n\n\n"
        "def attend(x):\n    L = x.size(1)\n"
        "    last_key_is_padding = torch.zeros(L, L)  # additive: -inf where forbidden\n"
        '    last_key_is_padding[:, -1] = float("-inf")\n'
        "    return mha(x, x, x, attn_mask=last_key_is_padding, need_weights=False, is_causal=True)\n",
        "import torch\nfrom torch import nn\n\n"
        "mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)\n\n\n"
        "def attend(x):\n    L = x.size(1)\n"
        "    last_key_is_padding = torch.zeros(L, L)  # additive: -inf where forbidden\n"
        '    last_key_is_padding[:, -1] = float("-inf")\n'
        "    return mha(x, x, x, attn_mask=last_key_is_padding, need_weights=False)\n",
    ),
    Rule(
        "AM307",
        "sliding-window-one-key-too-many",
        "warning",
        ("flash_attn.flash_attn_func.window_size", "transformers.mistral.sliding_window"),
        "A window size that counts the query's own key (transformers' `sliding_window`: W keys, "
        "the query's among them) handed unchanged as the left size of a window that does not "
        "count it (flash-attn's `window_size=(left, right)`: keys i - left to i + right, the "
        "query's own on top; JAX's `local_window_size` and xFormers' `window_left` count the same "
        "way): every query sees one key more than the model was trained with.",
        "`{subject}` counts the query's own key, and the window it is given to adds it again",
        "Pass `W - 1` as the left size: `window_size=(W - 1, 0)` with `causal=True` (or "
        "`(W - 1, W - 1)`), which lets each query see W keys, itself included.",
        "from flash_attn import flash_attn_func\n\n\n"
        "def attend(q, k, v, config):\n"
        "    window = (config.sliding_window, config.sliding_window)\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=window)\n",
        "from flash_attn import flash_attn_func\n\n\n"
        "def attend(q, k, v, config):\n"
        "    window = (config.sliding_window - 1, 0)  # W keys, the query's own included\n"
        "    return flash_attn_func(q, k, v, causal=True, window_size=window)\n",
    ),
)


def causal_hint_check(
    ev: Interpreter, row: apis.Api, node: ast.Call, values: list[AnyValue | None], api: str
) -> None:
    """AM306: ``is_causal=True`` without its mask, or beside a mask that is not causal."""
    args = ev.args(node)
    for flag in row.causal:
        hint, keyword, padding = flag.keyword, flag.vouches_for, flag.beside
        if keyword is None or padding is None:
            continue  # a flag that vouches for no mask of this call: nothing to hold it to
        hint_arg, _ = ev.argument(node, values, flag.position, hint)
        if hint_arg is None or not is_true(hint_arg.value):
            continue
        position = row.argument(keyword).position
        mask_arg, mask = ev.argument(node, values, position, keyword)
        if mask_arg is None or is_none(mask_arg.value):
            if any(arg.star for arg in args):
                continue  # the mask may come in *args / **kwargs
            ev.hit(
                "AM306",
                hint_arg,
                f"{api}'s {hint} only vouches for the {keyword} passed with it: with no "
                f"{keyword} the call raises, except on the inference fast path, which "
                "drops the hint and lets every query see the future",
            )
            continue
        padding_position = row.argument(padding).position
        padding_arg, _ = ev.argument(node, values, padding_position, padding)
        if padding_arg is not None and not is_none(padding_arg.value):
            continue  # with a padding mask the hint is ignored and the mask applied
        if row is apis.MHA:
            weights = apis.MHA.argument("need_weights")
            weights_arg, _ = ev.argument(node, values, weights.position, weights.keyword)
            if weights_arg is None or not is_false(weights_arg.value):
                continue  # need_weights=True applies the mask and ignores the hint
        if isinstance(mask, Mask) and mask.key_padding and not mask.by_name:
            ev.hit(
                "AM306",
                hint_arg,
                f"{api} drops the {keyword} when {hint}=True and no {padding} is given, and "
                "applies a causal triangle instead: this mask forbids keys for every query "
                "alike, it is not that triangle",
                [
                    (
                        f"said of the {keyword}, which forbids the same keys in each row",
                        mask.origin,
                    )
                ],
            )


def alignment_check(
    ev: Interpreter, node: ast.AST, rows: Dim, columns: Dim, diagonal: int, *, lower: bool
) -> None:
    """AM305: a causal triangle laid on L × S (queries × keys) at the top-left diagonal."""
    causal = (lower and diagonal == 0) or (not lower and diagonal == 1)
    named = ev.functions[-1].name.lower() if ev.functions else ""
    if not causal or "upper_left" in named or "top_left" in named:
        # a function named for the top-left alignment builds it on purpose
        return
    if columns.cache is not None and rows.cache is None and rows.read and columns.read:
        ev.hit(
            "AM305",
            node,
            "the triangle is laid on L × S from the top left, and S counts keys with a cache "
            "joined in front (L < S on that path): there query i sees keys 0..i only; "
            "bottom-right alignment is diagonal = S - L",
            [("the number of queries", rows.origin), ("keys with a cache", columns.cache)],
        )
        return
    fewer = rows.value is not None and columns.value is not None and rows.value < columns.value
    if not fewer or not (rows.read and columns.read):
        # literal sizes (a test's mask) or roles alone (q.size(-2) × k.size(-2)) do not show
        # that a layer ever meets fewer queries than keys
        # roles alone (q.size(-2) × k.size(-2)) do not show L < S ever happens
        return
    how = f"{rows.value} queries × {columns.value} keys"
    ev.hit(
        "AM305",
        node,
        f"the triangle is laid on {how} from the top left: where there are fewer queries "
        "than keys (a cache), query i sees keys 0..i only; bottom-right alignment is "
        "diagonal = S - L",
        [("the number of queries", rows.origin), ("the number of keys", columns.origin)],
    )


def triangle_check(
    ev: Interpreter, allowed: Triangle, mask: Mask, node: ast.AST | Arg, reads: str, flip_code: str
) -> None:
    """A triangle read as allowed: causal, the future, or neither."""
    if allowed == CAUSAL:
        return
    if allowed == CAUSAL.complement():
        ev.hit(
            flip_code,
            node,
            f"{reads}; a causal mask allows the past, {CAUSAL.describe()}",
            [am1_polarity.fact(ev, mask)],
        )
    else:
        sink = node.value if isinstance(node, Arg) else node
        if mask.triangle_at is not None and mask.triangle_at.node is not sink:
            # neither polarity makes this triangle causal: the finding goes where it is
            # built, which is what needs changing
            reads = f"{reads} (`{am1_polarity.sink_text(ev, node)}`)"
            node = mask.triangle_at.node
            if allowed.lower == CAUSAL.lower:
                # the right triangle on the wrong diagonal: the diagonal is what to change
                node = triangles.diagonal_argument(ev, node) or node
        ev.hit(
            "AM303",
            node,
            f"{reads}; so this mask allows {allowed.describe()[5:]}, not the causal "
            f"{CAUSAL.describe()[5:]}",
            [am1_polarity.fact(ev, mask)],
        )


@on(events.TriangleCut)
def _triangle_cut(ev: Interpreter, event: events.TriangleCut) -> None:
    alignment_check(ev, event.node, event.rows, event.columns, event.diagonal, lower=event.lower)


@on(events.ModuleCalled)
def _module_called(ev: Interpreter, event: events.ModuleCalled) -> None:
    causal_hint_check(ev, event.row, event.node, event.values, event.api)


@on(events.CausalFlag)
def _causal_flag(ev: Interpreter, event: events.CausalFlag) -> None:
    """AM301: a causal flag with a mask; AM302 / AM304: its top-left triangle where S > L."""
    api, causal_arg, query, key = event.api, event.flag, event.query, event.key
    if event.masked:
        ev.hit(
            "AM301",
            causal_arg,
            f"{api} refuses or ignores attn_mask with is_causal=True, depending on the "
            "release and backend: pass one of them (fold the causal mask into attn_mask)",
        )
    lengths = [
        value.sizes[-2].value
        if isinstance(value, Tensor) and value.sizes and len(value.sizes) >= 2
        else None
        for value in (query, key)
    ]
    shorter = None not in lengths and lengths[0] < lengths[1]  # type: ignore[operator]
    if isinstance(key, KeyCat) and not isinstance(query, KeyCat) and not key.maybe:
        ev.hit(
            "AM302",
            causal_arg,
            "is_causal=True aligns the triangle to the top left: with fewer queries than "
            "keys (L < S, a decode step) query i sees keys 0..i only",
            [("keys with a cache prepended: S > L", key.origin)],
        )
    elif shorter and isinstance(key, Tensor):
        ev.hit(
            "AM302",
            causal_arg,
            f"is_causal=True aligns the triangle to the top left: with {lengths[0]} "
            f"queries and {lengths[1]} keys, query i sees keys 0..i only",
            [(f"{lengths[1]} keys", key.origin)],
        )
    elif isinstance(key, KeyCat) and not isinstance(query, KeyCat):
        ev.hit(
            "AM304",
            causal_arg,
            "is_causal=True aligns the triangle to the top left: on the path where the "
            "keys hold a cache (L < S) query i sees keys 0..i only",
            [("keys with a cache prepended on some path", key.origin)],
        )


def _counted_with_its_key(left: ast.expr) -> apis.WindowSetting | None:
    """The setting ``left`` is unchanged, where that setting counts the query's own key.

    ``config.sliding_window`` and ``int(sliding_window)`` are the setting unchanged.
    """
    while (
        isinstance(left, ast.Call)
        and isinstance(left.func, ast.Name)
        and left.func.id == "int"
        and len(left.args) == 1
    ):
        left = left.args[0]
    name = (
        left.id
        if isinstance(left, ast.Name)
        else left.attr
        if isinstance(left, ast.Attribute)
        else None
    )
    return next((s for s in apis.WINDOW_SETTINGS if name in s.names), None)


@on(events.WindowAtApi)
def _window_at_api(ev: Interpreter, event: events.WindowAtApi) -> None:
    """AM307: a window size counted with the query's key, given where it is not counted."""
    setting = _counted_with_its_key(event.left)
    if setting is None:
        return
    with ev.cited((*event.rows, *setting.claims)):
        _one_key_too_many(ev, event)


def _one_key_too_many(ev: Interpreter, event: events.WindowAtApi) -> None:
    ev.hit(
        "AM307",
        event.left,
        f"{event.api} counts the keys before the query, its own key on top, so a left size of "
        "W lets each query see W + 1 keys",
        [
            (
                "a window of W keys, the query's own among them",
                Origin(event.left, "a window size that counts the query's own key"),
            )
        ],
    )
