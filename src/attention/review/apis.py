"""Every attention API the checker and the watch know, one row each: data, read by both.

A row says what a call of the API is: its qualified name (and the other names code reaches it
by), where each argument sits (position, keyword), what a mask given there means (a Boolean
mask's True: ``allowed`` or ``forbidden``; a floating-point mask: ``additive``), which causal
flag vouches for which mask and where it puts the triangle, and the rows of the mask-semantics
table (``conf/semantics.toml``) each of these rests on.  The checker (``sinks.py``,
``interpreter.py``), the watch and the prefilter (``check.KEYWORDS``) read positions, keywords
and names from here; ``tests/review/test_apis.py`` holds the rows against the claims.

A new API is a row here; what a rule makes of it stays with the rule.

>>> SDPA.argument("attn_mask").position, SDPA.argument("attn_mask").boolean
(3, 'allowed')
>>> MHA.argument("key_padding_mask").boolean, MHA.argument("key_padding_mask").floating
('forbidden', 'additive')
>>> [flag.keyword for flag in TRANSFORMER_DECODER.causal]
['tgt_is_causal', 'memory_is_causal']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "APIS",
    "CREATE_BLOCK_MASK",
    "FLASH_ATTN",
    "FLASH_ATTN_VARLEN",
    "FLEX_ATTENTION",
    "FUNCTIONS",
    "JAX_DOT_PRODUCT_ATTENTION",
    "MASK_MAKERS",
    "MHA",
    "MHA_FORWARD",
    "MODULE_APIS",
    "NATIVE_MHA",
    "NESTED_FROM_MASK",
    "OWN_SDPA",
    "SDPA",
    "TRANSFORMER",
    "TRANSFORMER_DECODER",
    "TRANSFORMER_DECODER_LAYER",
    "TRANSFORMER_ENCODER",
    "TRANSFORMER_ENCODER_LAYER",
    "TRANSFORMER_ENCODER_LAYER_FWD",
    "WINDOW_SETTINGS",
    "XFORMERS_LOCAL",
    "Api",
    "Argument",
    "MaskMaker",
    "WindowSetting",
]

Role = Literal["input", "mask", "padding", "causal", "window", "window_left", "option"]
"""What an argument is: a tensor attended over (``input``), a mask over queries and keys
(``mask``), a mask over keys per batch item (``padding``), a causal flag, a local window
``(left, right)`` counted in keys on each side of the query, its own key not counted
(``window``), the left size of such a window alone (``window_left``), or anything else."""
Boolean = Literal["allowed", "forbidden"]
"""What True means in a Boolean mask: the key may be attended to, or it is masked out."""
Floating = Literal["additive"]
"""How a floating-point mask is read: added to the scores (0 keeps a key, -inf removes it)."""
Alignment = Literal["upper_left", "lower_right"]
"""Where a causal flag puts the triangle when there are fewer queries than keys (the words of
the claims: ``upper_left`` is query i sees keys 0..i; ``lower_right`` aligns the last query with
the last key)."""


@dataclass(frozen=True)
class Argument:
    """One argument of an API: where it sits and, for a mask or a causal flag, what it means.

    ``position`` is the index among the positional arguments of a call (``self`` not counted
    for a module's ``forward``), None where it is keyword-only.  ``boolean`` / ``floating``: the
    convention of a Boolean / floating-point mask given here (``floating`` None: not accepted).
    A causal flag names the mask it vouches for (``vouches_for``), the padding mask beside it
    (``beside``) and its ``alignment``.  ``claims``: the ids of the claims this argument rests
    on; ``via``: the (API, argument) that receives it, whose claims hold for it too.
    """

    keyword: str
    position: int | None
    role: Role = "option"
    boolean: Boolean | None = None
    floating: Floating | None = None
    vouches_for: str | None = None
    beside: str | None = None
    alignment: Alignment | None = None
    claims: tuple[str, ...] = ()
    via: tuple[str, str] | None = None
    single_is_both: bool = False
    """For a ``window``: one size given alone stands for ``(size, size)``."""


@dataclass(frozen=True)
class Api:
    """One attention API: its names, its arguments in positional order, and how it is named.

    ``kind`` is the short name the checker and the watch key it by; ``label`` how the checker's
    messages name it; ``reported_as`` the public API a watch finding names, where this one is
    torch's internal function behind it; ``words``: text a file names it by (the prefilter's
    words); ``claims``: claims about the call as a whole (a fully masked row, the scale).
    """

    name: str
    kind: str
    label: str
    arguments: tuple[Argument, ...]
    aliases: tuple[str, ...] = ()
    reported_as: str | None = None
    words: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The qualified name and every alias."""
        return (self.name, *self.aliases)

    @property
    def short(self) -> str:
        """The name's last part (``MultiheadAttention``)."""
        return self.name.rpartition(".")[2]

    @property
    def cited(self) -> tuple[str, ...]:
        """Every claim the row cites: the call's, then its arguments' in positional order."""
        return (*self.claims, *(claim for a in self.arguments for claim in a.claims))

    def claim(self, tail: str) -> str:
        """The id of the claim the row cites as ``<api>.<tail>`` (a KeyError where none).

        >>> SDPA.claim("attn_mask.bool"), CREATE_BLOCK_MASK.claim("mask_mod")
        ('sdpa.attn_mask.bool', 'flex_attention.mask_mod')
        """
        for claim in self.cited:
            if claim.partition(".")[2] == tail:
                return claim
        raise KeyError(f"{self.name} cites no claim *.{tail}")

    def argument(self, keyword: str) -> Argument:
        """The argument given as ``keyword`` (a KeyError names it where there is none)."""
        for argument in self.arguments:
            if argument.keyword == keyword:
                return argument
        raise KeyError(f"{self.name} has no argument {keyword!r}")

    def position(self, keyword: str) -> int:
        """Where ``keyword`` sits among the positional arguments (a KeyError if keyword-only)."""
        position = self.argument(keyword).position
        if position is None:
            raise KeyError(f"{self.name}'s {keyword!r} is keyword-only")
        return position

    @property
    def masks(self) -> tuple[Argument, ...]:
        """The mask arguments (attention masks and padding masks), in positional order."""
        return tuple(a for a in self.arguments if a.role in ("mask", "padding"))

    @property
    def causal(self) -> tuple[Argument, ...]:
        """The causal flags, in positional order."""
        return tuple(a for a in self.arguments if a.role == "causal")


def _input(keyword: str, position: int) -> Argument:
    return Argument(keyword, position, "input")


# nn.MultiheadAttention's masks, which the nn.Transformer* modules hand on to it
_MHA = "torch.nn.MultiheadAttention"
_MHA_MASK = ("mha.attn_mask.bool", "mha.attn_mask.float")
_MHA_PADDING = ("mha.key_padding_mask.bool", "mha.key_padding_mask.float")


def _module_mask(keyword: str, position: int, *, padding: bool) -> Argument:
    """A mask of an ``nn.Transformer*`` module: MultiheadAttention's, True = masked out."""
    return Argument(
        keyword,
        position,
        "padding" if padding else "mask",
        boolean="forbidden",
        floating="additive",
        via=(_MHA, "key_padding_mask" if padding else "attn_mask"),
    )


def _module_flag(keyword: str, position: int, mask: str, padding: str) -> Argument:
    """An ``nn.Transformer*`` module's causal hint: it vouches that ``mask`` is causal."""
    return Argument(
        keyword, position, "causal", vouches_for=mask, beside=padding, via=(_MHA, "is_causal")
    )


SDPA = Api(
    name="torch.nn.functional.scaled_dot_product_attention",
    kind="sdpa",
    label="F.scaled_dot_product_attention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument(
            "attn_mask",
            3,
            "mask",
            boolean="allowed",
            floating="additive",
            claims=(
                "sdpa.attn_mask.bool",
                "sdpa.attn_mask.float",
                "sdpa.attn_mask.float32.low_precision",
                "sdpa.attn_mask.masked_nan",
                "sdpa.attn_mask.masked_nan.key",
            ),
        ),
        Argument("dropout_p", 4),
        Argument(
            "is_causal",
            5,
            "causal",
            alignment="upper_left",
            claims=("sdpa.is_causal.alignment", "sdpa.is_causal.decode_step"),
        ),
        Argument("scale", 6, claims=("sdpa.scale.default",)),
        Argument("enable_gqa", 7),
    ),
    words=("scaled_dot_product_attention", "attn_mask", "is_causal"),
    claims=("sdpa.fully_masked_row", "sdpa.fully_masked_row.additive"),
)
"""``F.scaled_dot_product_attention``: a Boolean ``attn_mask`` lists the keys that may be seen."""

OWN_SDPA = Api(
    name="attention.scaled_dot_product_attention",
    kind="own_sdpa",
    label="attention.scaled_dot_product_attention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument("allowed", 3, "mask", boolean="allowed"),
    ),
    aliases=("attention.scaled_dot_product.scaled_dot_product_attention",),
)
"""This package's own SDPA: a Boolean ``allowed`` (any other dtype raises ``MaskDtypeError``)."""

MHA = Api(
    name=_MHA,
    kind="mha",
    label="nn.MultiheadAttention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument(
            "key_padding_mask",
            3,
            "padding",
            boolean="forbidden",
            floating="additive",
            claims=_MHA_PADDING,
        ),
        Argument("need_weights", 4),
        Argument(
            "attn_mask", 5, "mask", boolean="forbidden", floating="additive", claims=_MHA_MASK
        ),
        Argument("average_attn_weights", 6),
        Argument(
            "is_causal",
            7,
            "causal",
            vouches_for="attn_mask",
            beside="key_padding_mask",
            claims=(
                "mha.is_causal.without_attn_mask",
                "mha.attn_mask.with_is_causal.need_weights_false",
                "mha.is_causal.need_weights_true",
            ),
        ),
    ),
    words=("MultiheadAttention", "key_padding_mask"),
    claims=(
        "mha.fully_masked_row.need_weights_true",
        "mha.fully_masked_row.need_weights_false",
        "mha.fully_masked_row.fast_path",
    ),
)
"""``nn.MultiheadAttention``'s ``forward``: both masks Boolean True = masked out, or additive."""

TRANSFORMER_ENCODER_LAYER = Api(
    name="torch.nn.TransformerEncoderLayer",
    kind="encoder_layer",
    label="nn.TransformerEncoderLayer",
    arguments=(
        _input("src", 0),
        _module_mask("src_mask", 1, padding=False),
        Argument(
            "src_key_padding_mask",
            2,
            "padding",
            boolean="forbidden",
            floating="additive",
            claims=(
                "transformer_encoder_layer.src_key_padding_mask.bool",
                "transformer_encoder_layer.src_key_padding_mask.bool.fast_path",
            ),
            via=(_MHA, "key_padding_mask"),
        ),
        _module_flag("is_causal", 3, "src_mask", "src_key_padding_mask"),
    ),
    words=("TransformerEncoder",),
)

TRANSFORMER_ENCODER = Api(
    name="torch.nn.TransformerEncoder",
    kind="encoder",
    label="nn.TransformerEncoder",
    arguments=(
        _input("src", 0),
        _module_mask("mask", 1, padding=False),
        _module_mask("src_key_padding_mask", 2, padding=True),
        _module_flag("is_causal", 3, "mask", "src_key_padding_mask"),
    ),
    words=("TransformerEncoder",),
    claims=("transformer_encoder.all_padding_item",),
)

_DECODER_ARGUMENTS = (
    _input("tgt", 0),
    _input("memory", 1),
    _module_mask("tgt_mask", 2, padding=False),
    _module_mask("memory_mask", 3, padding=False),
    _module_mask("tgt_key_padding_mask", 4, padding=True),
    _module_mask("memory_key_padding_mask", 5, padding=True),
    _module_flag("tgt_is_causal", 6, "tgt_mask", "tgt_key_padding_mask"),
    _module_flag("memory_is_causal", 7, "memory_mask", "memory_key_padding_mask"),
)

TRANSFORMER_DECODER_LAYER = Api(
    name="torch.nn.TransformerDecoderLayer",
    kind="decoder_layer",
    label="nn.TransformerDecoderLayer",
    arguments=_DECODER_ARGUMENTS,
    words=("TransformerDecoder",),
)

TRANSFORMER_DECODER = Api(
    name="torch.nn.TransformerDecoder",
    kind="decoder",
    label="nn.TransformerDecoder",
    arguments=_DECODER_ARGUMENTS,
    words=("TransformerDecoder",),
)

TRANSFORMER = Api(
    name="torch.nn.Transformer",
    kind="transformer",
    label="nn.Transformer",
    arguments=(
        _input("src", 0),
        _input("tgt", 1),
        _module_mask("src_mask", 2, padding=False),
        _module_mask("tgt_mask", 3, padding=False),
        _module_mask("memory_mask", 4, padding=False),
        _module_mask("src_key_padding_mask", 5, padding=True),
        _module_mask("tgt_key_padding_mask", 6, padding=True),
        _module_mask("memory_key_padding_mask", 7, padding=True),
        _module_flag("src_is_causal", 8, "src_mask", "src_key_padding_mask"),
        _module_flag("tgt_is_causal", 9, "tgt_mask", "tgt_key_padding_mask"),
        _module_flag("memory_is_causal", 10, "memory_mask", "memory_key_padding_mask"),
    ),
    words=("nn.Transformer", "import Transformer"),
)

MODULE_APIS = (
    MHA,
    TRANSFORMER_ENCODER_LAYER,
    TRANSFORMER_ENCODER,
    TRANSFORMER_DECODER_LAYER,
    TRANSFORMER_DECODER,
    TRANSFORMER,
)
"""The ``nn`` modules whose ``forward`` takes masks: built once, called with them."""

MHA_FORWARD = Api(
    name="torch.nn.functional.multi_head_attention_forward",
    kind="mha_forward",
    label="F.multi_head_attention_forward",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument("num_heads", 4),
        Argument(
            "key_padding_mask",
            14,
            "padding",
            boolean="forbidden",
            floating="additive",
            via=(_MHA, "key_padding_mask"),
        ),
        Argument("need_weights", 15),
        Argument(
            "attn_mask",
            16,
            "mask",
            boolean="forbidden",
            floating="additive",
            via=(_MHA, "attn_mask"),
        ),
        Argument("is_causal", 24, "causal", vouches_for="attn_mask", beside="key_padding_mask"),
    ),
    reported_as=_MHA,
    words=("multi_head_attention_forward",),
)
"""What ``nn.MultiheadAttention`` and the Transformer layers call on their ordinary path."""

NATIVE_MHA = Api(
    name="torch._native_multi_head_attention",
    kind="native_mha",
    label="torch._native_multi_head_attention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument("num_head", 4),
        Argument("mask", 9, "mask", boolean="forbidden", via=(_MHA, "attn_mask")),
        Argument("mask_type", 12),
    ),
    reported_as=_MHA,
)
"""``nn.MultiheadAttention``'s fused inference path: one merged mask, ``mask_type`` 1 padding."""

TRANSFORMER_ENCODER_LAYER_FWD = Api(
    name="torch._transformer_encoder_layer_fwd",
    kind="encoder_layer_fwd",
    label="torch._transformer_encoder_layer_fwd",
    arguments=(
        _input("src", 0),
        Argument("num_heads", 2),
        Argument("mask", 18, "mask", boolean="forbidden", via=(_MHA, "attn_mask")),
        Argument("mask_type", 19),
    ),
    reported_as=TRANSFORMER_ENCODER_LAYER.name,
)
"""``nn.TransformerEncoderLayer``'s fused inference path: one merged mask, as the above."""

NESTED_FROM_MASK = Api(
    name="torch._nested_tensor_from_mask",
    kind="nested_from_mask",
    label="torch._nested_tensor_from_mask",
    arguments=(_input("t", 0), Argument("mask", 1, "padding", boolean="allowed")),
    reported_as=TRANSFORMER_ENCODER.name,
)
"""``nn.TransformerEncoder``'s fast path keeps the tokens where ``mask`` is True: it is given
``src_key_padding_mask.logical_not()``, so True = a real token."""

FLEX_ATTENTION = Api(
    name="torch.nn.attention.flex_attention.flex_attention",
    kind="flex_attention",
    label="flex_attention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument("score_mod", 3),
        Argument(
            "block_mask",
            4,
            "mask",
            boolean="allowed",
            via=("torch.nn.attention.flex_attention.create_block_mask", "mask_mod"),
        ),
    ),
    claims=("flex_attention.fully_masked_row", "flex_attention.block_mask.reuse"),
)
"""``flex_attention``: its ``block_mask`` is made of a ``mask_mod`` (``CREATE_BLOCK_MASK``); the
watch reads it where ``flex_attention`` unpacks it (``BlockMask.as_tuple``)."""

CREATE_BLOCK_MASK = Api(
    name="torch.nn.attention.flex_attention.create_block_mask",
    kind="create_block_mask",
    label="flex_attention",
    arguments=(
        Argument("mask_mod", 0, "mask", boolean="allowed", claims=("flex_attention.mask_mod",)),
    ),
    aliases=("torch.nn.attention.flex_attention.create_mask",),
    reported_as=FLEX_ATTENTION.name,
    words=("create_block_mask", "create_mask("),
)
"""``create_block_mask(mask_mod, B, H, L, S)`` (and ``create_mask``, whose first argument is
``mod_fn``): a ``mask_mod`` returns True where a query may attend; ``flex_attention`` reads the
``BlockMask`` made of it."""

JAX_DOT_PRODUCT_ATTENTION = Api(
    name="jax.nn.dot_product_attention",
    kind="jax_sdpa",
    label="jax.nn.dot_product_attention",
    arguments=(
        _input("query", 0),
        _input("key", 1),
        _input("value", 2),
        Argument(
            "bias", 3, "mask", floating="additive", claims=("jax.nn.dot_product_attention.bias",)
        ),
        Argument(
            "mask",
            4,
            "mask",
            boolean="allowed",
            claims=(
                "jax.nn.dot_product_attention.mask.bool",
                "jax.nn.dot_product_attention.mask.float",
            ),
        ),
        Argument(
            "is_causal",
            None,
            "causal",
            alignment="upper_left",
            claims=("jax.nn.dot_product_attention.is_causal.alignment",),
        ),
        Argument(
            "local_window_size",
            None,
            "window",
            claims=("jax.nn.dot_product_attention.local_window_size",),
            single_is_both=True,
        ),
    ),
    words=("dot_product_attention",),
    claims=("jax.nn.dot_product_attention.fully_masked_row",),
)
"""JAX's ``jax.nn.dot_product_attention``: a Boolean ``mask`` lists the keys that may be seen,
as SDPA's does; ``bias`` is added to the scores (positions of jax 0.10.2)."""

_FLASH_WINDOW = Argument(
    "window_size", None, "window", claims=("flash_attn.flash_attn_func.window_size",)
)
_FLASH_CAUSAL = Argument(
    "causal",
    None,
    alignment="lower_right",
    claims=("flash_attn.flash_attn_func.causal.alignment",),
)

FLASH_ATTN = Api(
    name="flash_attn.flash_attn_func",
    kind="flash_attn",
    label="flash_attn_func",
    arguments=(
        _input("q", 0),
        _input("k", 1),
        _input("v", 2),
        Argument("causal", 5, alignment="lower_right", claims=_FLASH_CAUSAL.claims),
        Argument("window_size", 6, "window", claims=_FLASH_WINDOW.claims),
    ),
    aliases=("flash_attn.flash_attn_interface.flash_attn_func",),
    words=("flash_attn", "window_size"),
    claims=("flash_attn.flash_attn_func.fully_masked_row",),
)
"""flash-attn's ``flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, …)``
(flash-attn 2.8.3): ``window_size=(left, right)`` lets query i see keys ``i - left`` to
``i + right``, its own key on top of both; ``causal`` puts the triangle bottom-right."""

FLASH_ATTN_VARLEN = Api(
    name="flash_attn.flash_attn_varlen_func",
    kind="flash_attn_varlen",
    label="flash_attn_varlen_func",
    arguments=(_FLASH_CAUSAL, _FLASH_WINDOW),
    aliases=(
        "flash_attn.flash_attn_interface.flash_attn_varlen_func",
        "flash_attn.flash_attn_with_kvcache",
        "flash_attn.flash_attn_interface.flash_attn_with_kvcache",
    ),
    words=("flash_attn", "window_size"),
    reported_as=FLASH_ATTN.name,
)
"""flash-attn's other entry points, read by keyword (their positions differ): the same
``window_size`` and ``causal`` as ``flash_attn_func``."""

XFORMERS_LOCAL = Api(
    name="xformers.ops.fmha.attn_bias.LocalAttentionFromBottomRightMask",
    kind="xformers_local",
    label="LocalAttentionFromBottomRightMask",
    arguments=(
        Argument(
            "window_left",
            0,
            "window_left",
            claims=("xformers.LocalAttentionFromBottomRightMask.window_left",),
        ),
    ),
    aliases=("xformers.ops.LocalAttentionFromBottomRightMask",),
    words=("LocalAttentionFromBottomRightMask",),
)
"""xFormers' ``LocalAttentionFromBottomRightMask(window_left, window_right)``: query i sees keys
``i - window_left`` to ``i + window_right``, its own key on top, as flash-attn's window (unlike
``LowerTriangularFromBottomRightLocalAttentionMask(W)``, which counts it: W keys)."""

APIS = (
    SDPA,
    OWN_SDPA,
    *MODULE_APIS,
    MHA_FORWARD,
    NATIVE_MHA,
    TRANSFORMER_ENCODER_LAYER_FWD,
    NESTED_FROM_MASK,
    FLEX_ATTENTION,
    CREATE_BLOCK_MASK,
    JAX_DOT_PRODUCT_ATTENTION,
    FLASH_ATTN,
    FLASH_ATTN_VARLEN,
    XFORMERS_LOCAL,
)
"""Every row, torch's public APIs first."""

FUNCTIONS: dict[str, Api] = {
    name: api for api in APIS if api not in MODULE_APIS for name in api.names
}
"""Every attention function (not a module), by each of its names."""


@dataclass(frozen=True)
class MaskMaker:
    """A function that returns a mask whose convention is set elsewhere, by the model's config.

    ``names``: its qualified names; ``module``: the last part of its module, by which a
    package's own relative import reaches it (``from ...masking_utils import ...``).
    ``boolean``: what True means where the mask is Boolean; ``additive_when``: the setting under
    which it is an additive mask instead (0 keeps a key, the dtype's minimum masks it out).
    ``claims``: the rows that verify both, once they are in the table.
    """

    names: tuple[str, ...]
    module: str
    boolean: Boolean
    additive_when: str
    claims: tuple[str, ...] = ()

    def reaches(self, qualified: str | None, relative: tuple[str, str] | None) -> bool:
        """Whether a call of ``qualified`` (or of ``name`` imported from ``module``) is this."""
        if qualified in self.names:
            return True
        if relative is None:
            return False
        module, name = relative
        return module.rsplit(".", 1)[-1] == self.module and any(
            known.rsplit(".", 1)[-1] == name for known in self.names
        )


TRANSFORMERS_MASKS = MaskMaker(
    names=tuple(
        f"transformers.masking_utils.{name}"
        for name in (
            "create_causal_mask",
            "create_bidirectional_mask",
            "create_sliding_window_causal_mask",
            "create_chunked_causal_mask",
        )
    ),
    module="masking_utils",
    boolean="allowed",
    additive_when='attn_implementation="eager"',
    claims=(
        "transformers.create_causal_mask.eager",
        "transformers.create_causal_mask.sdpa",
        "transformers.create_bidirectional_mask.eager",
        "transformers.create_bidirectional_mask.sdpa",
    ),
)
"""transformers' mask functions: a Boolean mask (True = may attend) for SDPA, a float mask of 0
and the dtype's minimum for the eager implementation (rows ``transformers.create_causal_mask.*``
and ``transformers.create_bidirectional_mask.*``, verified on every recorded release that has
them: from 4.53 and from 5.0, on the CPU)."""

MASK_MAKERS = (TRANSFORMERS_MASKS,)
"""Every function whose mask's convention depends on a setting, by row."""


@dataclass(frozen=True)
class WindowSetting:
    """A setting that sizes a local window counting the query's own key.

    ``W`` lets a query see ``W`` keys, itself included, so a ``window`` argument (which does not
    count it) takes ``W - 1``.  ``names``: the attribute or variable names it goes by;
    ``claims``: the rows that verify how it counts.
    """

    names: tuple[str, ...]
    claims: tuple[str, ...]


TRANSFORMERS_SLIDING_WINDOW = WindowSetting(
    names=("sliding_window",),
    claims=("transformers.mistral.sliding_window",),
)
"""transformers' ``config.sliding_window``: ``W`` keys, the query's own among them (Mistral,
Qwen2, Gemma; verified on the eager, SDPA and FlexAttention implementations)."""

WINDOW_SETTINGS = (TRANSFORMERS_SLIDING_WINDOW,)
"""Every window size that counts the query's own key, by row."""
