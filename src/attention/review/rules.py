"""Every rule of the checker as data, with its examples and its demonstration.

A rule is a code, a name, a severity, the rows it rests on, a message, a fix, a wrong and a
right example (the source of its test fixtures and of its site page), and a demonstration
that runs the wrong code on torch next to the right one (:mod:`.demos`).

Severity is ``error`` where the source alone proves the mistake, ``warning`` where the finding
rests on what the source suggests but does not prove (a name such as ``pad_mask``, or a dtype,
size or path it does not show).  Codes
are stable: a retired rule keeps its code unused.

>>> RULES[0].code, RULES[0].severity
('AM101', 'error')
>>> by_code("AM202").fixable
True
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from attention.review.demos import DEMOS

__all__ = ["RULES", "Rule", "Severity", "by_code"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Rule:
    """One rule of the checker.

    ``message`` is the finding's headline; ``wrong`` / ``right`` are complete Python files
    (``wrong`` gives exactly one finding of this rule, ``right`` none); ``demo_wrong`` /
    ``demo_right`` are doctest texts that print what each does on torch.
    """

    code: str
    name: str
    severity: Severity
    rows: tuple[str, ...]
    summary: str
    message: str
    fix: str
    wrong: str
    right: str
    fixable: bool = False

    @property
    def demo_wrong(self) -> str:
        """The wrong example run on torch, as a doctest (``>>>`` lines and their output)."""
        return DEMOS[self.code][0]

    @property
    def demo_right(self) -> str:
        """The right example run on torch, as a doctest."""
        return DEMOS[self.code][1]


_SDPA_HEAD = "import torch\nimport torch.nn.functional as F\n\n"
_MHA_CLASS = (
    "from torch import nn\n\n\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)\n\n"
)
_SCORES = "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5\n"

_ROW_BIAS = (
    "import torch\n\n\n"
    "def attend(q, k, v):\n"
    "    bias = torch.zeros(1, 1, 3, 3)\n"
    '    bias[..., 2, :] = float("-inf")  # query 2 may attend to nothing\n'
    "    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + bias\n"
)
_SPLIT_CLASS = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Attention(nn.Module):\n"
    "    def __init__(self, dim, heads):\n"
    "        super().__init__()\n"
    "        self.heads, self.head_dim = heads, dim // heads\n"
    "        self.q = nn.Linear(dim, dim)\n\n"
    "    def forward(self, x):\n"
    "        b = x.size(0)\n"
)

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
        ("mha.key_padding_mask.bool", "transformer_encoder_layer.src_key_padding_mask.bool"),
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
        ("sdpa.attn_mask.float", "mha.attn_mask.float"),
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
    Rule(
        "AM701",
        "invert-a-non-boolean-mask",
        "error",
        ("sdpa.attn_mask.bool", "mha.key_padding_mask.bool"),
        "`~` on an integer or float mask is a bitwise not: ~1 is -2 and ~0 is -1, both nonzero "
        "(True), so the 'inverted' mask is True everywhere (float raises).",
        "`{subject}` inverts a mask that is not Boolean",
        "Compare instead (`mask == 0`), or convert first (`~mask.bool()`).",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    padding = (ids == pad_id).long()\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~padding)\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    padding = ids == pad_id\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=~padding)\n",
    ),
    Rule(
        "AM702",
        "invert-a-hf-attention-mask",
        "warning",
        ("mha.key_padding_mask.bool",),
        "`~attention_mask` on a Hugging Face mask (integers 1 / 0): -2 / -1, True everywhere once "
        "read as Boolean.",
        "`{subject}` inverts what looks like an integer Hugging Face attention_mask",
        "`attention_mask == 0` (True = padding).",
        _MHA_CLASS + "    def forward(self, x, batch):\n"
        '        out, _ = self.attn(x, x, x, key_padding_mask=~batch["attention_mask"])\n'
        "        return out\n",
        _MHA_CLASS + "    def forward(self, x, batch):\n"
        '        out, _ = self.attn(x, x, x, key_padding_mask=batch["attention_mask"] == 0)\n'
        "        return out\n",
    ),
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

_BY_CODE = {rule.code: rule for rule in RULES}


def by_code(code: str) -> Rule:
    """The rule ``code`` (``AM101``); KeyError names the known codes otherwise."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise KeyError(f"no rule {code!r}; the rules are {', '.join(_BY_CODE)}") from None
