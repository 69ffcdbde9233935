"""AM1xx, polarity: which value of a mask means may attend.

A mask read with the other meaning of True (may attend / is forbidden), or a Hugging Face
``attention_mask`` (1 = real token) read as the opposite.
"""

# ruff: noqa: E501  (the examples are whole source files, kept as a reader would write them)

from __future__ import annotations

from attention.review.rules._examples import _MHA_CLASS, _SCORES, _SDPA_HEAD
from attention.review.rules._rule import Rule

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
)
