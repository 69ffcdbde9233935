"""AM703: a mask whose convention the model's config sets, inverted as if it were Boolean.

transformers' ``create_causal_mask`` (and the bidirectional, sliding-window and chunked ones)
returns a Boolean mask, True = may attend, for SDPA, and a float mask of 0 and the dtype's
minimum for the eager implementation (``apis.MASK_MAKERS``).  ``logical_not()`` of the float one
is True where attention is allowed.  Code that tests which it is, or hands it on unchanged, is
right; nothing is said of its polarity where the code does not show the setting.
"""

from __future__ import annotations

import pytest

from attention.review.check import check_source

_IMPORT = {
    "absolute": "from transformers.masking_utils import create_causal_mask\n",
    "relative": "from ...masking_utils import create_causal_mask\n",
}


def codes(body: str, *, how: str = "relative") -> list[tuple[str, int]]:
    source = "import torch\nfrom torch import nn\n" + _IMPORT[how] + "\n\n" + body
    return [(f.code, f.line) for f in check_source(source, "modeling_x.py")]


_MADE = (
    "def attend(config, embeds, attention_mask, scores):\n"
    "    mask = create_causal_mask(config=config, inputs_embeds=embeds, "
    "attention_mask=attention_mask, past_key_values=None)\n"
)


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_logical_not_of_the_made_mask(how: str) -> None:
    body = _MADE + '    return scores.masked_fill(mask.logical_not(), float("-inf")).softmax(-1)\n'
    assert codes(body, how=how) == [("AM703", 8)]


@pytest.mark.parametrize(
    "use",
    [
        # tested first: Boolean on this side, added on the other
        "    if mask.dtype == torch.bool:\n"
        '        return scores.masked_fill(~mask, float("-inf")).softmax(-1)\n'
        "    return (scores + mask).softmax(-1)\n",
        # added as it is (SDPA and the eager sum both take either)
        "    return torch.nn.functional.scaled_dot_product_attention(scores, scores, scores, "
        "attn_mask=mask)\n",
        # MPT: eager only, the float mask made Boolean, True = masked out
        '    return scores.masked_fill(mask.to(torch.bool), float("-inf")).softmax(-1)\n',
    ],
    ids=["tested", "handed-on", "to-bool"],
)
def test_uses_that_hold_for_either_mask_or_for_a_setting_not_shown(use: str) -> None:
    assert codes(_MADE + use) == []


def test_the_test_narrows_only_inside_the_if() -> None:
    body = _MADE + (
        "    rows = None\n"
        "    if mask.dtype == torch.bool:\n"
        "        rows = torch.all(~mask, dim=-1)\n"
        "    else:\n"
        "        rows = torch.all(mask == 0.0, dim=-1)\n"
        '    return scores.masked_fill(mask.logical_not(), float("-inf")), rows\n'
    )
    assert codes(body) == [("AM703", 13)]


def test_through_a_layer_called_with_more_keywords() -> None:
    body = (
        "class Attention(nn.Module):\n"
        "    def forward(self, scores, attention_mask=None, **kwargs):\n"
        '        return scores.masked_fill_(attention_mask.logical_not(), float("-inf"))\n'
        "\n\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.config = config\n"
        "        self.attn = Attention()\n"
        "\n"
        "    def forward(self, scores, embeds, attention_mask, **kwargs):\n"
        "        mask = create_causal_mask(config=self.config, inputs_embeds=embeds, "
        "attention_mask=attention_mask, past_key_values=None)\n"
        "        return self.attn(scores, attention_mask=mask, use_cache=False, **kwargs)\n"
    )
    assert codes(body) == [("AM703", 8)]


def test_every_mask_maker_rests_on_rows_that_say_both_conventions() -> None:
    """The rows a maker cites verify what it says: additive under its setting, else Boolean
    with its polarity (and AM703 cites them)."""
    from attention.review.apis import MASK_MAKERS
    from attention.review.rules import by_code
    from attention.semantics.claims import load_ecosystem_claims

    rows = {claim.id: claim for claim in load_ecosystem_claims()}
    for maker in MASK_MAKERS:
        expected = {rows[row].expected for row in maker.claims}
        assert expected == {"additive", maker.boolean}, maker.claims
        assert set(maker.claims) <= set(by_code("AM703").rows)
