"""AM7xx, inversion: ``~`` on a mask that is not boolean, or on an ``attention_mask``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attention.review import events
from attention.review.events import on

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

from attention.review.rules._examples import _MHA_CLASS
from attention.review.rules._rule import Rule

READS = (
    "The dtype of the tensor that `~`, `logical_not` or `1 -` is applied to, as the code "
    "shows it: a comparison gives bool, `.long()` integers, `torch.ones` float32 unless a "
    "dtype is given; for a mask that a function makes Boolean or additive by the model's "
    "setting (transformers' `create_causal_mask`), whether the code tested its dtype first."
)
"""What the family's rules read: the facts each finding rests on."""

SILENT = (
    "A tensor of unknown dtype, such as a parameter with no annotation; the runtime watch "
    "sees its dtype."
)
"""What the family leaves silent: what its rules cannot know, and so do not guess."""

RULES: tuple[Rule, ...] = (
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
        ("transformers.attention_mask", "mha.key_padding_mask.bool"),
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
        "AM703",
        "invert-a-mask-additive-under-another-setting",
        "warning",
        (
            "transformers.create_causal_mask.eager",
            "transformers.create_causal_mask.sdpa",
            "transformers.create_bidirectional_mask.eager",
            "transformers.create_bidirectional_mask.sdpa",
        ),
        "transformers' create_causal_mask (and create_bidirectional_mask, the sliding-window and "
        "chunked ones) returns a Boolean mask, True = may attend, for SDPA, but for the eager "
        "implementation a float mask of 0 (may attend) and the dtype's minimum (masked out). "
        "`logical_not()` of the float one is True exactly where attention is allowed, so a "
        "fill where it is True masks the kept keys; `~` of it raises.",
        "`{subject}` inverts a mask that is additive under another attention implementation",
        "Test which mask it is (`if mask.dtype == torch.bool:`) and invert only the Boolean "
        "one; the additive one is added to the scores as it is.",
        "from transformers.masking_utils import create_bidirectional_mask\n\n\n"
        "def encode(config, embeds, attention_mask, scores):\n"
        "    mask = create_bidirectional_mask(config=config, inputs_embeds=embeds, "
        "attention_mask=attention_mask)\n"
        '    return scores.masked_fill(mask.logical_not(), float("-inf")).softmax(-1)\n',
        "import torch\nfrom transformers.masking_utils import create_bidirectional_mask\n\n\n"
        "def encode(config, embeds, attention_mask, scores):\n"
        "    mask = create_bidirectional_mask(config=config, inputs_embeds=embeds, "
        "attention_mask=attention_mask)\n"
        "    if mask.dtype == torch.bool:\n"
        '        return scores.masked_fill(mask.logical_not(), float("-inf")).softmax(-1)\n'
        "    return (scores + mask).softmax(-1)\n",
    ),
)


@on(events.MaskInverted)
def _mask_inverted(ev: Interpreter, event: events.MaskInverted) -> None:
    """AM701 / AM702: ``~`` of a mask that is not Boolean (by its name: a tokenizer's)."""
    mask = event.mask
    expects = "`~` flips a Boolean tensor only; on integers ~1 is -2 and ~0 is -1"
    ev.hit("AM702" if mask.by_name else "AM701", event.node, expects, [(mask.says(), mask.origin)])


@on(events.IntegersInverted)
def _integers_inverted(ev: Interpreter, event: events.IntegersInverted) -> None:
    """AM701: ``~`` of an integer tensor."""
    expects = "`~` flips a Boolean tensor only; on integers ~1 is -2 and ~0 is -1"
    ev.hit("AM701", event.node, expects, [("an integer tensor", event.tensor.origin)])


@on(events.MaskOfASettingInverted)
def _mask_of_a_setting_inverted(ev: Interpreter, event: events.MaskOfASettingInverted) -> None:
    """AM703: ``logical_not`` / ``~`` of a mask that one setting makes additive."""
    mask = event.mask
    expects = (
        f"under {mask.additive_when} this is a float mask of 0 (may attend) and the dtype's "
        "minimum: logical_not() is True where attention is allowed, and ~ raises; only the "
        "Boolean mask of the other settings is inverted so"
    )
    says = (
        "the inverse of a mask that is True = may attend where it is Boolean (SDPA) and a "
        f"float mask of 0 and the dtype's minimum under {mask.additive_when}"
    )
    ev.hit("AM703", event.node, expects, [(says, mask.origin)])
