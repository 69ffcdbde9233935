"""The runtime watch's rules as data: code, name, the rows they rest on, message and fix.

Each rule has its own warning class, so a test or a filter can select one meaning
(``warnings.simplefilter("error", InvertedMaskWarning)``); all derive from
:class:`AttentionWatchWarning`.  With ``strict=True`` the watch raises
:class:`AttentionWatchError` instead, carrying the finding.

>>> RULES["AW201"].name, RULES["AW201"].rows[0]
('inverted-boolean-mask', 'sdpa.attn_mask.bool')
>>> issubclass(RULES["AW207"].warning, AttentionWatchWarning)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from attention.review import apis

__all__ = [
    "RULES",
    "AttentionWatchError",
    "AttentionWatchWarning",
    "BatchFirstInputWarning",
    "CausalAlignmentWarning",
    "CausalShapeWarning",
    "FullyMaskedRowWarning",
    "HiddenKeyNanWarning",
    "InvertedMaskWarning",
    "MaskOverflowWarning",
    "MaskTiledWarning",
    "MaskedSoftmaxRowWarning",
    "NanScoresWarning",
    "NonFiniteMaskWarning",
    "PaddingHidesItemWarning",
    "PositiveAdditiveMaskWarning",
    "QueryAxisSoftmaxWarning",
    "ReversedPaddingWarning",
    "ShiftedIntegerMaskWarning",
    "SizeOneSoftmaxWarning",
    "SoftmaxAxisWarning",
    "UniformSoftmaxWarning",
    "WatchRule",
    "WeakFillWarning",
]


class AttentionWatchWarning(UserWarning):
    """What :func:`attention.review.watch` reports at run time: a wrong mask, or softmax."""


class InvertedMaskWarning(AttentionWatchWarning):
    """A Boolean mask whose polarity looks inverted (AW201)."""


class FullyMaskedRowWarning(AttentionWatchWarning):
    """Query rows that may attend to no key (AW202)."""


class PaddingHidesItemWarning(AttentionWatchWarning):
    """A padding mask that hides every key of a batch item (AW203)."""


class PositiveAdditiveMaskWarning(AttentionWatchWarning):
    """An additive mask of only 0.0 and 1.0: a Boolean mask turned float (AW204)."""


class ShiftedIntegerMaskWarning(AttentionWatchWarning):
    """An additive mask of two integers one apart, -1 and 0 or -2 and -1 (AW220)."""


class NonFiniteMaskWarning(AttentionWatchWarning):
    """An additive mask with NaN or +inf entries (AW205)."""


class MaskOverflowWarning(AttentionWatchWarning):
    """An additive mask whose constants overflow in the query's dtype (AW206)."""


class CausalShapeWarning(AttentionWatchWarning):
    """``is_causal=True`` with as many queries as keys not given (AW207)."""


class NanScoresWarning(AttentionWatchWarning):
    """NaN entering a softmax (AW208)."""


class MaskedSoftmaxRowWarning(AttentionWatchWarning):
    """A softmax row whose every entry is masked: NaN or uniform weights follow (AW209)."""


class WeakFillWarning(AttentionWatchWarning):
    """A fill constant that leaves a masked entry a weight (AW210)."""


class SoftmaxAxisWarning(AttentionWatchWarning):
    """A softmax over an axis the mask does not vary along (AW211)."""


class SizeOneSoftmaxWarning(AttentionWatchWarning):
    """A softmax over an axis of size 1: every weight is 1 (AW212)."""


class CausalAlignmentWarning(AttentionWatchWarning):
    """A top-left causal triangle with fewer queries than keys (AW213)."""


class ReversedPaddingWarning(AttentionWatchWarning):
    """A padding mask that hides the first keys of every batch item (AW214)."""


class HiddenKeyNanWarning(AttentionWatchWarning):
    """NaN or inf in a key or value that the mask hides, spoiling the output (AW215)."""


class QueryAxisSoftmaxWarning(AttentionWatchWarning):
    """A softmax over the queries' axis of q @ kᵀ self-attention scores (AW216)."""


class BatchFirstInputWarning(AttentionWatchWarning):
    """A batch-first input given to a sequence-first nn.MultiheadAttention (AW218)."""


class MaskTiledWarning(AttentionWatchWarning):
    """A 3-D attn_mask tiled for the heads in the other order than the module reads (AW219)."""


class UniformSoftmaxWarning(AttentionWatchWarning):
    """A softmax whose every row holds one value repeated: every weight is 1/n (AW217)."""


class AttentionWatchError(Exception):
    """Raised by ``watch(strict=True)`` at the call whose mask a rule flags.

    ``finding`` is the :class:`attention.review.watch.Finding`; the message is its text.
    """

    def __init__(self, message: str, finding: object) -> None:
        super().__init__(message)
        self.finding = finding


@dataclass(frozen=True)
class WatchRule:
    """One runtime rule: what it catches (``message``), the fix, and the rows it rests on.

    ``static``: the checker's rules (:mod:`attention.review.rules`) that find the same mistake
    in the source, where the code shows it; the watch finds it in the values.
    """

    code: str
    name: str
    rows: tuple[str, ...]
    message: str
    fix: str
    warning: type[AttentionWatchWarning]
    static: tuple[str, ...] = ()


_RULES = (
    WatchRule(
        code="AW201",
        name="inverted-boolean-mask",
        rows=(
            apis.SDPA.claim("attn_mask.bool"),
            apis.MHA.claim("attn_mask.bool"),
            apis.CREATE_BLOCK_MASK.claim("mask_mod"),
        ),
        message=(
            "the mask looks inverted: with as many queries as keys it forbids every query its "
            "own key, or it allows exactly the keys after each query (the future)"
        ),
        fix=(
            "SDPA and flex_attention read True as may attend (torch.tril(ones).bool() is causal), "
            "nn.MultiheadAttention reads True as masked out (torch.triu(ones, 1).bool()); flip "
            "the mask with ~ where it was built for the other convention"
        ),
        warning=InvertedMaskWarning,
        static=("AM101", "AM102", "AM105"),
    ),
    WatchRule(
        code="AW202",
        name="fully-masked-row",
        rows=(
            apis.SDPA.claim("fully_masked_row"),
            apis.SDPA.claim("fully_masked_row.additive"),
            apis.MHA.claim("fully_masked_row.need_weights_true"),
            apis.MHA.claim("fully_masked_row.need_weights_false"),
            apis.MHA.claim("fully_masked_row.fast_path"),
            apis.FLEX_ATTENTION.claim("fully_masked_row"),
            apis.SDPA.claim("attn_mask.float"),
        ),
        message="query rows that may attend to no key",
        fix=(
            "give every query at least one key (left padding: let padded queries see themselves), "
            "or drop those rows before the loss; what they return depends on the API and path"
        ),
        warning=FullyMaskedRowWarning,
        static=("AM601", "AM602"),
    ),
    WatchRule(
        code="AW203",
        name="padding-hides-item",
        rows=(
            apis.MHA.claim("key_padding_mask.bool"),
            apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool"),
            apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool.fast_path"),
            apis.MHA.claim("attn_mask.bool"),
            apis.SDPA.claim("attn_mask.bool"),
            apis.SDPA.claim("attn_mask.float"),
            apis.SDPA.claim("fully_masked_row"),
            apis.SDPA.claim("fully_masked_row.additive"),
            apis.MHA.claim("fully_masked_row.need_weights_true"),
            apis.MHA.claim("fully_masked_row.need_weights_false"),
            apis.MHA.claim("fully_masked_row.fast_path"),
        ),
        message="the padding mask hides every key of a batch item",
        fix=(
            "check the mask's polarity (ids == pad is True = padding, what key_padding_mask "
            "wants; SDPA wants ids != pad), and drop batch items that are all padding"
        ),
        warning=PaddingHidesItemWarning,
        static=("AM102", "AM103"),
    ),
    WatchRule(
        code="AW204",
        name="boolean-mask-as-float",
        rows=(
            apis.SDPA.claim("attn_mask.float"),
            apis.MHA.claim("attn_mask.float"),
            apis.MHA.claim("key_padding_mask.float"),
        ),
        message=(
            "the additive mask holds only 0.0 and 1.0: a Boolean mask turned .float() adds 1.0 "
            "where it meant to allow or to forbid, and masks nothing (other positive values, "
            "as in a T5 or relative-position bias, are not reported)"
        ),
        fix=(
            "pass the Boolean mask itself, or build the additive one as "
            "torch.zeros(shape).masked_fill(forbidden, float('-inf'))"
        ),
        warning=PositiveAdditiveMaskWarning,
        static=("AM201",),
    ),
    WatchRule(
        code="AW205",
        name="non-finite-additive-mask",
        rows=(
            apis.SDPA.claim("attn_mask.float"),
            apis.MHA.claim("attn_mask.float"),
            apis.MHA.claim("key_padding_mask.float"),
        ),
        message="the additive mask has NaN or +inf entries: every weight of their rows is NaN",
        fix="an additive mask holds 0 where a key is allowed and -inf (or a large negative) "
        "where it is not; find where the NaN or +inf came from (0 * inf, inf - inf)",
        warning=NonFiniteMaskWarning,
        static=("AM205",),
    ),
    WatchRule(
        code="AW206",
        name="mask-overflow",
        rows=(
            apis.SDPA.claim("attn_mask.float"),
            apis.SDPA.claim("attn_mask.float32.low_precision"),
        ),
        message=(
            "the additive mask holds finite constants beyond the range of the query's dtype: "
            "in the computation they become -inf, so a row masked with them is no longer "
            "finite (-1e9 or torch.finfo(torch.float32).min with a float16/bfloat16 query, "
            "or the sum of two finfo.min masks)"
        ),
        fix="build the mask in the query's dtype with torch.finfo(query.dtype).min, once "
        "(not summed), or use a Boolean mask",
        warning=MaskOverflowWarning,
        static=("AM202",),
    ),
    WatchRule(
        code="AW207",
        name="is-causal-shape",
        rows=(apis.SDPA.claim("is_causal.alignment"), apis.SDPA.claim("is_causal.decode_step")),
        message=(
            "is_causal=True with a different number of queries and keys: the triangle is "
            "anchored at the top-left, so query i sees keys 0..i only (a decode step with a KV "
            "cache, L = 1, sees key 0 alone)"
        ),
        fix=(
            "for a decode step pass no mask (L = 1 may see every cached key), or pass "
            "torch.nn.attention.bias.causal_lower_right(L, S) as attn_mask"
        ),
        warning=CausalShapeWarning,
        static=("AM302", "AM304"),
    ),
)

_SOFTMAX_RULES = (
    WatchRule(
        code="AW208",
        name="nan-into-softmax",
        rows=(apis.SDPA.claim("attn_mask.masked_nan"), "softmax.all_neg_inf_row"),
        message=(
            "NaN enters the softmax: one NaN score makes every weight of its row NaN, whether "
            "or not its key is masked (NaN + mask is NaN, and masked_fill keeps a NaN it does "
            "not cover)"
        ),
        fix=(
            "find where the NaN came from before the softmax (0 * inf, inf - inf, -inf - -inf, "
            "a NaN in a padded key's vector); mask by replacing scores (masked_fill), not by "
            "adding to them, where padded keys may hold NaN"
        ),
        warning=NanScoresWarning,
        static=("AM204", "AM205"),
    ),
    WatchRule(
        code="AW209",
        name="masked-softmax-row",
        rows=("softmax.all_neg_inf_row", apis.SDPA.claim("attn_mask.float")),
        message=(
            "a softmax row whose every entry is masked: all -inf gives NaN, all one finite "
            "fill (or the dtype's minimum) gives uniform weights over every key, masked ones "
            "included; two finfo.min masks summed, or -1e9 cast to float16, give -inf"
        ),
        fix=(
            "give every query at least one key (a padded query may see itself), or drop those "
            "rows before the loss; build masks with torch.finfo(scores.dtype).min once, never "
            "summed"
        ),
        warning=MaskedSoftmaxRowWarning,
        static=("AM603",),
    ),
    WatchRule(
        code="AW210",
        name="weak-fill",
        rows=(apis.SDPA.claim("attn_mask.float"),),
        message=(
            "the constant the scores were filled with does not zero a masked key's weight "
            "(masked_fill(mask, 1e-9) where -1e9 was meant, or -1e4 below scores of that size)"
        ),
        fix=(
            "fill with float('-inf') where every row keeps a key, else with "
            "torch.finfo(scores.dtype).min"
        ),
        warning=WeakFillWarning,
        static=("AM203",),
    ),
    WatchRule(
        code="AW211",
        name="softmax-axis",
        rows=(apis.SDPA.claim("attn_mask.float"),),
        message=(
            "the softmax runs over an axis along which the mask does not vary, so it "
            "normalises over something other than the keys (softmax(dim=1) where dim=-1 was "
            "meant)"
        ),
        fix="take the softmax over the keys' axis, the last of [..., L, S]: softmax(dim=-1)",
        warning=SoftmaxAxisWarning,
        static=("AM402",),
    ),
    WatchRule(
        code="AW212",
        name="softmax-over-size-one-axis",
        rows=(apis.SDPA.claim("attn_mask.float"),),
        message=(
            "the softmax runs over an axis of size 1 while the last axis is longer: every "
            "weight is 1.0, whatever the scores (a [B·L, S] view softmaxed over dim 0, or "
            "[B, 1, S] over dim 1)"
        ),
        fix="take the softmax over the keys' axis, the last of [..., L, S]: softmax(dim=-1)",
        warning=SizeOneSoftmaxWarning,
        static=("AM402",),
    ),
    WatchRule(
        code="AW213",
        name="causal-top-left",
        rows=("bias.causal_upper_left.alignment", "bias.causal_lower_right.alignment"),
        message=(
            "the mask is the top-left causal triangle with fewer queries than keys (L < S): "
            "query i sees keys 0..i, so with cached keys before the new queries every query "
            "misses the most recent S - L of its keys"
        ),
        fix=(
            "anchor the triangle at the bottom right: torch.ones(L, S, dtype=torch.bool)"
            ".tril(S - L), or torch.nn.attention.bias.causal_lower_right(L, S)"
        ),
        warning=CausalAlignmentWarning,
        static=("AM305",),
    ),
)

_VALUE_RULES = (
    WatchRule(
        code="AW214",
        name="reversed-padding-mask",
        rows=(
            apis.MHA.claim("key_padding_mask.bool"),
            apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool"),
            apis.TRANSFORMER_ENCODER_LAYER.claim("src_key_padding_mask.bool.fast_path"),
            apis.SDPA.claim("attn_mask.bool"),
        ),
        message=(
            "the padding mask hides the first keys of every batch item and lets the last ones "
            "through, the mirror image of right padding, and the hidden keys are not one "
            "repeated vector, as padding is: a mask whose True marks the real tokens "
            "(attention_mask.bool()) given where True means padding, or the reverse; with an "
            "item that has no padding the same mistake hides that item whole (AW203)"
        ),
        fix=(
            "key_padding_mask and src_key_padding_mask take True = padding (attention_mask == 0), "
            "SDPA's attn_mask takes True = may attend (attention_mask.bool()); for a batch "
            "padded on the left on purpose, ignore this rule"
        ),
        warning=ReversedPaddingWarning,
        static=("AM102", "AM103"),
    ),
    WatchRule(
        code="AW215",
        name="nan-in-hidden-key",
        rows=(apis.SDPA.claim("attn_mask.masked_nan.key"), apis.SDPA.claim("attn_mask.masked_nan")),
        message=(
            "a key or value that the mask hides from every query holds NaN or inf, and the "
            "output is NaN: masking sets a key's weight to 0, but NaN + -inf and 0 × NaN are "
            "still NaN"
        ),
        fix=(
            "zero the padded keys and values themselves (k.masked_fill(padding[..., None], 0)); "
            "find where the NaN came from (uninitialised cache memory, a division by a zero "
            "length)"
        ),
        warning=HiddenKeyNanWarning,
        static=("AM205",),
    ),
    WatchRule(
        code="AW216",
        name="softmax-over-queries",
        rows=(),
        message=(
            "the softmax runs over the queries' axis of self-attention scores q @ kᵀ (as many "
            "queries as keys): each key's column sums to 1, not each query's row, and the "
            "weights then average the values with rows that do not sum to 1"
        ),
        fix=(
            "take the softmax over the keys' axis, the last of [..., L, S]: softmax(dim=-1); "
            "where normalising over the queries is meant (co-attention, slot attention), "
            "ignore this rule"
        ),
        warning=QueryAxisSoftmaxWarning,
        static=("AM402",),
    ),
    WatchRule(
        code="AW217",
        name="uniform-softmax",
        rows=(),
        message=(
            "every row the softmax normalises holds one value repeated, while the scores vary "
            "along other axes: every weight is 1/n whatever the scores (two identical branches "
            "concatenated and softmaxed, or a softmax over an axis the scores were broadcast "
            "along)"
        ),
        fix=(
            "take the softmax over the axis whose entries compete (the keys, or the branches), "
            "and check that its inputs differ along it"
        ),
        warning=UniformSoftmaxWarning,
    ),
    WatchRule(
        code="AW218",
        name="batch-first-input",
        rows=(),
        message=(
            "nn.MultiheadAttention (or an nn.Transformer layer) built without batch_first=True "
            "reads [L, B, E]; its input has the layout of the token ids it was embedded from, "
            "batch first, as their padding shows, so the batch items are attended as positions "
            "of one sequence"
        ),
        fix=(
            "build the module with batch_first=True, or give it input.transpose(0, 1); the "
            "watch sees this only where token ids embedded with a padding index show the layout"
        ),
        warning=BatchFirstInputWarning,
        static=("AM801",),
    ),
    WatchRule(
        code="AW219",
        name="mask-tiled-against-the-heads",
        rows=(apis.MHA.claim("attn_mask.bool"),),
        message=(
            "nn.MultiheadAttention reads a 3-D attn_mask [B·H, L, S] batch item by batch item, "
            "each item's H heads together (entry b·H + h); this mask holds one item's mask "
            "every B entries, head by head, as repeat(H, 1, 1) tiles it, so the items' masks "
            "are read for the wrong items"
        ),
        fix=(
            "tile the per-item mask with mask.repeat_interleave(num_heads, dim=0), or give "
            "[B, S] padding as key_padding_mask"
        ),
        warning=MaskTiledWarning,
        static=("AM802",),
    ),
    WatchRule(
        code="AW220",
        name="integer-mask-as-additive",
        rows=(
            apis.SDPA.claim("attn_mask.float"),
            apis.MHA.claim("attn_mask.float"),
            apis.MHA.claim("key_padding_mask.float"),
        ),
        message=(
            "the additive mask holds only two integers one apart (-1 and 0, or -2 and -1): a "
            "0/1 mask negated or inverted as integers (`~` of 0 and 1 is -1 and -2) and added "
            "as it is, so a masked key keeps e^-1 ≈ 0.37 of the weight it would have"
        ),
        fix=(
            "invert or negate the mask as a Boolean one (`mask == 0`, `~mask.bool()`), and pass "
            "it as it is, or fill its masked entries with float('-inf') or finfo(dtype).min"
        ),
        warning=ShiftedIntegerMaskWarning,
        static=("AM203",),
    ),
)

RULES: Mapping[str, WatchRule] = {
    rule.code: rule for rule in (*_RULES, *_SOFTMAX_RULES, *_VALUE_RULES)
}
"""Every runtime rule, by code."""
