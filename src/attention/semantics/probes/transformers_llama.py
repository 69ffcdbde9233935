"""Live probes for the masks a Hugging Face decoder takes, per attention implementation.

No download: a one-layer ``LlamaModel`` (hidden size 8, one head) is built from a
``LlamaConfig`` under a fixed seed, for each ``attn_implementation`` a row covers (``"eager"``,
``"sdpa"``, ``"flex_attention"``).  Its query and key projections are then set to zero (every
score is 0) and its value projection to the identity, and the input embeddings are one-hot per
position: the input of the output projection ``o_proj`` *is* the weight matrix, up to the
constant the RMS norm multiplies a one-hot row by.  A forward pre-hook on ``o_proj`` reads it,
so the probes see the weights every implementation really applied, masks and all -- the same
zero-scores, one-hot-values design as the other rows, inside a real transformers model.

The questions are the ones public bug threads ask: what a custom 4-D ``attention_mask`` means
(Boolean, float 0 / 1, integer 0 / 1) on each implementation, what a left-padded query row with
no key gives, where the causal triangle sits when a cache makes the keys outnumber the queries,
and when ``position_ids`` that restart at 0 keep packed documents apart.

Counting the calls into ``F.scaled_dot_product_attention`` shows which implementation ran.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from attention.semantics.observe import (
    ProbePathError,
    causal_alignment,
    count_calls,
    describe,
    empty_row_outcome,
)
from attention.semantics.probes.releases import ABSENT, optional_module
from attention.semantics.probes.windows import window_reading
from attention.semantics.registry import framework_module, probe

__all__ = [
    "Implementation",
    "cache_alignment",
    "causal_off_eager",
    "causal_off_flex",
    "causal_off_sdpa",
    "causal_off_sdpa_padding",
    "config_is_causal",
    "create_bidirectional_mask_eager",
    "create_bidirectional_mask_sdpa",
    "create_causal_mask_eager",
    "create_causal_mask_flex",
    "create_causal_mask_sdpa",
    "flash_attention_2_custom_4d",
    "forward_is_causal_eager",
    "forward_is_causal_sdpa",
    "forward_is_causal_sdpa_padding",
    "fully_masked_row_eager",
    "fully_masked_row_flex",
    "fully_masked_row_sdpa",
    "gemma3_image_block",
    "gemma3_two_images",
    "llama_weights",
    "mask_4d_bool_eager",
    "mask_4d_bool_sdpa",
    "mask_4d_float01_eager",
    "mask_4d_float01_sdpa",
    "mask_4d_int01_eager",
    "mask_4d_int01_sdpa",
    "mask_function_reading",
    "mask_reading",
    "packed_position_ids",
    "packed_position_ids_with_2d_mask",
    "packed_position_ids_with_cache",
    "right_padding_last_position",
    "sliding_window",
    "tiny_llama",
]

FRAMEWORK = "transformers"

Implementation = Literal["eager", "sdpa", "flex_attention"]
"""The attention implementations the rows cover (``attn_implementation`` of the config)."""

IMPLEMENTATIONS: tuple[Implementation, ...] = ("eager", "sdpa", "flex_attention")

WIDTH = 8  # hidden size = head size: one-hot embeddings for up to 8 positions
PATTERN = torch.tensor([[True, False, True]] * 3)  # [L, S]: key 1 is the odd one out
PACKED = torch.tensor([[0, 1, 2, 0, 1, 2]])  # position_ids of two documents of 3 tokens


def tiny_llama(
    implementation: Implementation, *, sliding_window: int | None = None, **fields: Any
) -> Any:
    """A one-layer LlamaModel reading out its weights: zero scores, identity values.

    With ``sliding_window`` it is a MistralModel instead (the same layers, and a config field
    ``sliding_window``), so every layer attends within that window.  ``fields`` go to the config
    as they are (``is_causal=False``).
    """
    transformers = framework_module("transformers")
    mistral = sliding_window is not None
    extra = {"sliding_window": sliding_window} if mistral else {}
    extra.update(fields)
    config = (transformers.MistralConfig if mistral else transformers.LlamaConfig)(
        vocab_size=16,
        hidden_size=WIDTH,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=1,
        num_key_value_heads=1,
        head_dim=WIDTH,
        max_position_embeddings=32,
        attn_implementation=implementation,
        **extra,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = (transformers.MistralModel if mistral else transformers.LlamaModel)(config).eval()
    if model.config._attn_implementation != implementation:
        raise ProbePathError(
            f"asked for attn_implementation={implementation!r}, the model uses "
            f"{model.config._attn_implementation!r}"
        )
    attention = model.layers[0].self_attn
    with torch.no_grad():
        attention.q_proj.weight.zero_()  # every score is 0
        attention.k_proj.weight.zero_()
        attention.v_proj.weight.copy_(torch.eye(WIDTH))  # value of position j: a multiple of e_j
    return model


def llama_weights(implementation: Implementation, length: int, **inputs: Any) -> Tensor:
    """The weights ``[L, S]`` (float64) the model's attention applied to ``length`` positions.

    ``inputs`` go to the forward call (``attention_mask``, ``position_ids``, ``use_cache``, a
    cache...).  The one-hot embeddings of positions ``offset .. offset + length - 1`` are fed,
    ``offset`` being the length of the cache passed in ``past_key_values``.
    """
    model = tiny_llama(implementation) if "model" not in inputs else inputs.pop("model")
    offset = inputs.pop("offset", 0)
    embeddings = torch.eye(WIDTH)[offset : offset + length][None]  # [B=1, L, E]: one-hot
    seen: dict[str, Tensor] = {}
    attention = model.layers[0].self_attn

    def keep(_module: object, args: tuple[Tensor, ...]) -> None:
        seen["x"] = args[0].detach().clone()  # [B, L, H * D]: weights @ values

    hook = attention.o_proj.register_forward_pre_hook(keep)
    try:
        with torch.no_grad(), count_calls(F, "scaled_dot_product_attention") as sdpa:
            model(inputs_embeds=embeddings, **inputs)
    finally:
        hook.remove()
    if (sdpa.calls > 0) != (implementation == "sdpa"):
        raise ProbePathError(
            f"attn_implementation={implementation!r}, but F.scaled_dot_product_attention ran "
            f"{sdpa.calls} time(s)"
        )
    # the RMS norm turns the one-hot e_j into e_j / sqrt(1 / E + eps)
    scale = 1.0 / math.sqrt(1.0 / WIDTH + model.config.rms_norm_eps)
    keys = offset + length
    return seen["x"][0, :, :keys].to(torch.float64) / scale


def _close(weights: Tensor, expected: Tensor) -> bool:
    return bool(torch.allclose(weights, expected.to(torch.float64), atol=1e-5, rtol=0.0))


def mask_reading(weights: Tensor, pattern: Tensor) -> str:
    """How a 0 / 1 (or Boolean) ``pattern`` [L, S] was read, from the weights it produced.

    ``"allowed"``: exactly the 1 entries receive weight; ``"forbidden"``: exactly the 0 entries;
    ``"additive"``: the 0 / 1 values were added to the scores (weights ``softmax(pattern)``, so
    no key is masked out at all).

    >>> pattern = torch.tensor([[True, False, True]])
    >>> mask_reading(torch.tensor([[0.5, 0.0, 0.5]], dtype=torch.float64), pattern)
    'allowed'
    >>> mask_reading(torch.softmax(pattern.double(), -1), pattern)
    'additive'
    """
    numbers = pattern.to(torch.float64)
    readings = {
        "allowed": numbers / numbers.sum(-1, keepdim=True),
        "forbidden": (1 - numbers) / (1 - numbers).sum(-1, keepdim=True),
        "additive": torch.softmax(numbers, dim=-1),
    }
    for word, expected in readings.items():
        if _close(weights, expected):
            return word
    return f"unrecognised: weights {describe(weights)}"


def _custom_4d(implementation: Implementation, dtype: torch.dtype) -> str:
    mask = PATTERN.to(dtype)[None, None]  # [B, 1, L, S], used as given: no causal triangle added
    try:
        weights = llama_weights(implementation, 3, attention_mask=mask)
    except ProbePathError:
        raise
    except Exception:
        return "error"
    return mask_reading(weights, PATTERN)


@probe("transformers.llama.attention_mask.4d.bool.eager", framework=FRAMEWORK)
def mask_4d_bool_eager() -> str:
    """A Boolean 4-D ``attention_mask`` with ``attn_implementation="eager"``."""
    return _custom_4d("eager", torch.bool)


@probe("transformers.llama.attention_mask.4d.bool.sdpa", framework=FRAMEWORK)
def mask_4d_bool_sdpa() -> str:
    """A Boolean 4-D ``attention_mask`` with ``attn_implementation="sdpa"``."""
    return _custom_4d("sdpa", torch.bool)


@probe("transformers.llama.attention_mask.4d.float01.eager", framework=FRAMEWORK)
def mask_4d_float01_eager() -> str:
    """A float 4-D ``attention_mask`` of 1 (attend) and 0 (padding), eager."""
    return _custom_4d("eager", torch.float32)


@probe("transformers.llama.attention_mask.4d.float01.sdpa", framework=FRAMEWORK)
def mask_4d_float01_sdpa() -> str:
    """The same float 0 / 1 4-D mask with SDPA."""
    return _custom_4d("sdpa", torch.float32)


@probe("transformers.llama.attention_mask.4d.int01.eager", framework=FRAMEWORK)
def mask_4d_int01_eager() -> str:
    """An integer (int64) 4-D ``attention_mask`` of 1 and 0, eager."""
    return _custom_4d("eager", torch.int64)


@probe("transformers.llama.attention_mask.4d.int01.sdpa", framework=FRAMEWORK)
def mask_4d_int01_sdpa() -> str:
    """The same integer 0 / 1 4-D mask with SDPA."""
    return _custom_4d("sdpa", torch.int64)


def _left_padded_first_row(implementation: Implementation) -> str:
    # 2-D mask [0, 1, 1]: query 0 is padding, and causally it sees only key 0, also padding
    weights = llama_weights(implementation, 3, attention_mask=torch.tensor([[0, 1, 1]]))
    return empty_row_outcome(weights[0])


@probe("transformers.llama.fully_masked_row.eager", framework=FRAMEWORK)
def fully_masked_row_eager() -> str:
    """A left-padded query row with no key, eager."""
    return _left_padded_first_row("eager")


@probe("transformers.llama.fully_masked_row.sdpa", framework=FRAMEWORK)
def fully_masked_row_sdpa() -> str:
    """A left-padded query row with no key, SDPA (on this machine's CPU)."""
    return _left_padded_first_row("sdpa")


@probe("transformers.llama.fully_masked_row.flex_attention", framework=FRAMEWORK)
def fully_masked_row_flex() -> str:
    """A left-padded query row with no key, FlexAttention."""
    return _left_padded_first_row("flex_attention")


def _agree(seen: dict[str, str]) -> str:
    values = set(seen.values())
    if len(values) == 1:
        return values.pop()
    return "differs by implementation: " + ", ".join(f"{k}: {v}" for k, v in seen.items())


def _cached_alignment(implementation: Implementation) -> str:
    model = tiny_llama(implementation)
    transformers = framework_module("transformers")
    try:
        cache = transformers.DynamicCache(config=model.config)
    except TypeError:  # releases before 4.56 build a cache without the config
        cache = transformers.DynamicCache()
    llama_weights(implementation, 2, model=model, past_key_values=cache, use_cache=True)
    weights = llama_weights(
        implementation, 2, model=model, past_key_values=cache, use_cache=True, offset=2
    )
    return causal_alignment(weights)  # [L=2, S=4]


@probe("transformers.llama.cache.causal.alignment", framework=FRAMEWORK)
def cache_alignment() -> str:
    """2 new queries against a cache of 2 keys (S = 4), on every implementation."""
    return _agree({name: _cached_alignment(name) for name in IMPLEMENTATIONS})


def _packed(implementation: Implementation, **inputs: Any) -> str:
    """``"applied"`` when the second document (positions 3..5) sees none of the first."""
    weights = llama_weights(implementation, 6, position_ids=PACKED, **inputs)
    second = weights[3:]  # [3, 6]: the second document's queries
    apart = torch.zeros(3, 6, dtype=torch.float64)
    apart[:, 3:] = torch.ones(3, 3, dtype=torch.float64).tril()
    apart /= apart.sum(-1, keepdim=True)
    together = torch.ones(3, 6, dtype=torch.float64).tril(diagonal=3)
    together /= together.sum(-1, keepdim=True)
    if _close(second, apart):
        return "applied"
    if _close(second, together):
        return "ignored"
    return f"unrecognised: weights {describe(second)}"


@probe("transformers.llama.position_ids.packed", framework=FRAMEWORK)
def packed_position_ids() -> str:
    """``position_ids`` restarting at 0, no ``attention_mask``, ``use_cache=False``.

    Eager and SDPA only: FlexAttention compiles the packed-document mask with Inductor, which
    failed to build it on this machine's CPU.
    """
    return _agree({name: _packed(name, use_cache=False) for name in ("eager", "sdpa")})


@probe("transformers.llama.position_ids.packed.use_cache", framework=FRAMEWORK)
def packed_position_ids_with_cache() -> str:
    """The same, with the config's default ``use_cache=True`` (a cache is created)."""
    return _agree({name: _packed(name) for name in IMPLEMENTATIONS})


@probe("transformers.llama.position_ids.packed.attention_mask_2d", framework=FRAMEWORK)
def packed_position_ids_with_2d_mask() -> str:
    """The same, with an all-ones 2-D ``attention_mask`` and ``use_cache=False``."""
    ones = torch.ones(1, 6, dtype=torch.long)
    return _agree(
        {name: _packed(name, attention_mask=ones, use_cache=False) for name in IMPLEMENTATIONS}
    )


WINDOW = 3  # sliding_window of the Mistral config: keys per query in a row of 6


def _window(implementation: Implementation) -> str:
    model = tiny_llama(implementation, sliding_window=WINDOW)
    return window_reading(llama_weights(implementation, 6, model=model, use_cache=False), WINDOW)


@probe("transformers.mistral.sliding_window", framework=FRAMEWORK)
def sliding_window() -> str:
    """How many keys ``sliding_window=3`` lets each of 6 queries see, on every implementation."""
    return _agree({name: _window(name) for name in IMPLEMENTATIONS})


def _causal_off(implementation: Implementation, attention_mask: Tensor) -> str:
    """``"applied"`` when ``self_attn.is_causal = False`` lets query 1 see the later key 2.

    ``"ignored"`` when query 1 still sees only the keys up to itself that the mask allows.
    """
    model = tiny_llama(implementation)
    model.layers[0].self_attn.is_causal = False  # what a bidirectional port of a decoder sets
    weights = llama_weights(
        implementation, 3, model=model, use_cache=False, attention_mask=attention_mask
    )
    row = weights[1]  # query 1: [3]
    allowed = attention_mask[0].bool()  # the real (not padding) keys
    if bool(row[2] > 0) and torch.equal(row > 0, allowed):
        return "applied"
    causal = allowed & (torch.arange(3) <= 1)
    if torch.equal(row > 0, causal):
        return "ignored"
    return f"unrecognised: weights {describe(weights)}"


NO_PADDING = torch.tensor([[1, 1, 1]])
LEFT_PADDING = torch.tensor([[0, 1, 1]])


@probe("transformers.llama.self_attn.is_causal.eager", framework=FRAMEWORK)
def causal_off_eager() -> str:
    """``is_causal = False`` on the attention module, eager, no padding."""
    return _causal_off("eager", NO_PADDING)


@probe("transformers.llama.self_attn.is_causal.sdpa", framework=FRAMEWORK)
def causal_off_sdpa() -> str:
    """``is_causal = False`` on the attention module, SDPA, no padding."""
    return _causal_off("sdpa", NO_PADDING)


@probe("transformers.llama.self_attn.is_causal.sdpa.padding", framework=FRAMEWORK)
def causal_off_sdpa_padding() -> str:
    """``is_causal = False`` on the attention module, SDPA, a padded batch (mask [0, 1, 1])."""
    return _causal_off("sdpa", LEFT_PADDING)


@probe("transformers.llama.self_attn.is_causal.flex_attention", framework=FRAMEWORK)
def causal_off_flex() -> str:
    """``is_causal = False`` on the attention module, FlexAttention, no padding."""
    return _causal_off("flex_attention", NO_PADDING)


def _right_padded(implementation: Implementation) -> str:
    """``"computed"`` when the padding query at the end of ``[1, 1, 0]`` attends to the real keys.

    Generation reads the logits of the last position; with right padding that is a padding
    token's, computed like any other (its row is not empty: the real keys before it are allowed).
    """
    weights = llama_weights(
        implementation, 3, attention_mask=torch.tensor([[1, 1, 0]]), use_cache=False
    )
    real = weights[:2]  # queries 0 and 1: causal over the real keys, padding never seen
    expected_real = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], dtype=torch.float64)
    if not _close(real, expected_real):
        return f"unrecognised: real rows {describe(real)}"
    last = weights[2]  # the padding query: its own key is masked, keys 0 and 1 are not
    if _close(last, torch.tensor([0.5, 0.5, 0.0])):
        return "computed"
    return empty_row_outcome(last)


@probe("transformers.llama.padding.right", framework=FRAMEWORK)
def right_padding_last_position() -> str:
    """A right-padded row ``[1, 1, 0]``: what its last (padding) position holds, everywhere."""
    return _agree({name: _right_padded(name) for name in IMPLEMENTATIONS})


def tiny_gemma3(implementation: Implementation) -> Any:
    """A one-layer ``Gemma3Model`` (text and a one-patch vision tower) reading out its weights.

    Its language model's first layer gets zero query and key projections and the identity as
    its value projection, as :func:`tiny_llama` does; no ``pixel_values`` are passed, so only
    ``token_type_ids`` says which positions are image tokens.
    """
    transformers = framework_module("transformers")
    text = transformers.Gemma3TextConfig(
        vocab_size=16,
        hidden_size=WIDTH,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=1,
        num_key_value_heads=1,
        head_dim=WIDTH,
        max_position_embeddings=32,
        layer_types=["full_attention"],
    )
    vision = transformers.SiglipVisionConfig(
        hidden_size=WIDTH,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=1,
        image_size=14,
        patch_size=14,
    )
    config = transformers.Gemma3Config(
        text_config=text, vision_config=vision, mm_tokens_per_image=1, image_token_index=15
    )
    config._attn_implementation = implementation
    config.text_config._attn_implementation = implementation
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.Gemma3Model(config).eval()
    attention = model.language_model.layers[0].self_attn
    with torch.no_grad():
        attention.q_proj.weight.zero_()
        attention.k_proj.weight.zero_()
        attention.v_proj.weight.copy_(torch.eye(WIDTH))
    return model


IMAGE_TOKENS = torch.tensor([[0, 1, 1, 0]])  # token_type_ids: positions 1 and 2 are one image


def _image_block(implementation: Implementation) -> str:
    """``"applied"`` when the two image tokens see each other both ways and text stays causal."""
    model = tiny_gemma3(implementation)
    seen: dict[str, Tensor] = {}
    attention = model.language_model.layers[0].self_attn

    def keep(_module: object, args: tuple[Tensor, ...]) -> None:
        seen["x"] = args[0].detach().clone()

    hook = attention.o_proj.register_forward_pre_hook(keep)
    try:
        with torch.no_grad():
            model(
                inputs_embeds=torch.eye(WIDTH)[None, :4],
                token_type_ids=IMAGE_TOKENS,
                use_cache=False,
            )
    finally:
        hook.remove()
    x = seen["x"][0, :, :4].to(torch.float64)
    weights = x / x.sum(-1, keepdim=True)  # every position's one-hot is scaled alike
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    block = causal.clone()
    block[1, 2] = True  # image token 1 sees image token 2, after it
    for word, allowed in (("applied", block), ("ignored", causal)):
        expected = allowed.to(torch.float64) / allowed.sum(-1, keepdim=True)
        if _close(weights, expected):
            return word
    return f"unrecognised: weights {describe(weights)}"


@probe("transformers.gemma3.token_type_ids.image_block", framework=FRAMEWORK)
def gemma3_image_block() -> str:
    """Two image tokens inside a causal text row (``token_type_ids``), eager and SDPA.

    Not FlexAttention: after the other rows' FlexAttention calls in the same process, torch
    2.13's Inductor failed to compile this model's (a C++ compile error on this machine's CPU),
    while the same call alone ran; a row must not depend on what ran before it.
    """
    transformers = framework_module("transformers")
    if not hasattr(transformers, "Gemma3Model"):
        return ABSENT
    return _agree({name: _image_block(name) for name in ("eager", "sdpa")})


def _causal_off_by(implementation: Implementation, attention_mask: Tensor, how: str) -> str:
    """``"applied"`` when ``is_causal=False``, given ``how``, lets query 1 see the later key 2.

    ``how`` is ``"forward"`` (a keyword argument of the model's forward call) or ``"config"``
    (a field of the config the model is built from).  ``"ignored"`` when query 1 still sees
    only the keys up to itself that the mask allows, ``"error"`` when the call is refused.
    """
    model = tiny_llama(implementation, **({"is_causal": False} if how == "config" else {}))
    extra = {"is_causal": False} if how == "forward" else {}
    try:
        weights = llama_weights(
            implementation, 3, model=model, use_cache=False, attention_mask=attention_mask, **extra
        )
    except ProbePathError:
        raise
    except TypeError:  # releases whose forward takes no such keyword
        return "error"
    row = weights[1]  # query 1: [3]
    allowed = attention_mask[0].bool()  # the real (not padding) keys
    if bool(row[2] > 0) and torch.equal(row > 0, allowed):
        return "applied"
    if torch.equal(row > 0, allowed & (torch.arange(3) <= 1)):
        return "ignored"
    return f"unrecognised: weights {describe(weights)}"


@probe("transformers.llama.forward.is_causal.eager", framework=FRAMEWORK)
def forward_is_causal_eager() -> str:
    """``model(..., is_causal=False)``, eager, no padding."""
    return _causal_off_by("eager", NO_PADDING, "forward")


@probe("transformers.llama.forward.is_causal.sdpa", framework=FRAMEWORK)
def forward_is_causal_sdpa() -> str:
    """``model(..., is_causal=False)``, SDPA, no padding."""
    return _causal_off_by("sdpa", NO_PADDING, "forward")


@probe("transformers.llama.forward.is_causal.sdpa.padding", framework=FRAMEWORK)
def forward_is_causal_sdpa_padding() -> str:
    """``model(..., is_causal=False)``, SDPA, a padded batch (mask [0, 1, 1])."""
    return _causal_off_by("sdpa", LEFT_PADDING, "forward")


@probe("transformers.llama.config.is_causal", framework=FRAMEWORK)
def config_is_causal() -> str:
    """``LlamaConfig(is_causal=False)``: eager and SDPA, with and without padding, agreeing."""
    return _agree(
        {
            f"{name}, mask {mask[0].tolist()}": _causal_off_by(name, mask, "config")
            for name in ("eager", "sdpa")
            for mask in (NO_PADDING, LEFT_PADDING)
        }
    )


# -- what transformers.masking_utils' mask functions return, per implementation -----------------

RIGHT_PADDING = torch.tensor([[1, 1, 0]])  # key 2 is padding: no implementation may skip the mask
CAUSAL_PADDED = torch.tensor([[True, False, False], [True, True, False], [True, True, False]])
"""[L, S]: the keys each query may attend to, causally, with key 2 padding."""
BIDIRECTIONAL_PADDED = torch.tensor([[True, True, False]] * 3)
"""[L, S]: the keys each query may attend to, both ways, with key 2 padding."""

MaskFunction = Literal["create_causal_mask", "create_bidirectional_mask"]
"""The ``transformers.masking_utils`` functions the rows cover."""


def _make_mask(function: MaskFunction, implementation: Implementation, dtype: torch.dtype) -> Any:
    """``function`` for 3 positions and ``RIGHT_PADDING``, its arguments passed by name.

    The argument names changed across releases (``input_embeds`` / ``inputs_embeds``,
    ``past_key_values`` / ``cache``, ``cache_position``), so they are read off its signature.
    """
    import inspect

    transformers = framework_module("transformers")
    masking = optional_module("transformers.masking_utils")
    assert masking is not None
    config = transformers.LlamaConfig(
        vocab_size=16,
        hidden_size=WIDTH,
        intermediate_size=16,
        num_hidden_layers=1,
        num_attention_heads=1,
        num_key_value_heads=1,
        head_dim=WIDTH,
        attn_implementation=implementation,
    )
    config._attn_implementation = implementation
    make = getattr(masking, function)
    names = inspect.signature(make).parameters
    embeds = "input_embeds" if "input_embeds" in names else "inputs_embeds"
    arguments: dict[str, Any] = {
        embeds: torch.zeros(1, 3, WIDTH, dtype=dtype),  # [B, L, E]: only its dtype and shape count
        "attention_mask": RIGHT_PADDING,
    }
    if "cache_position" in names:
        arguments["cache_position"] = torch.arange(3)
    for cache in ("past_key_values", "cache"):
        if cache in names:
            arguments[cache] = None
    if "position_ids" in names:
        arguments["position_ids"] = torch.arange(3)[None]
    return make(config=config, **arguments)


def mask_function_reading(function: MaskFunction, implementation: Implementation) -> str:
    """What ``function`` returned for ``implementation``, in the table's words.

    ``"additive"``: a tensor [B, 1, L, S] of the embeddings' dtype (float32 and bfloat16 both
    checked), exactly 0 where the function's pattern (:data:`CAUSAL_PADDED`,
    :data:`BIDIRECTIONAL_PADDED`) allows a key and ``torch.finfo(dtype).min`` elsewhere.
    ``"allowed"``: a Boolean tensor, or a FlexAttention ``BlockMask`` whose ``mask_mod``,
    evaluated on every (query, key) pair, is True exactly where a key is allowed.
    :data:`~attention.semantics.probes.releases.ABSENT` on a release without the function.
    """
    from torch.nn.attention.flex_attention import BlockMask

    masking = optional_module("transformers.masking_utils")
    if masking is None or not hasattr(masking, function):
        return ABSENT
    pattern = CAUSAL_PADDED if function == "create_causal_mask" else BIDIRECTIONAL_PADDED
    readings = set()
    for dtype in (torch.float32, torch.bfloat16):
        try:
            mask = _make_mask(function, implementation, dtype)
        except Exception as error:
            return f"error: {type(error).__name__}: {error}"
        if isinstance(mask, BlockMask):
            queries, keys = torch.arange(3)[:, None], torch.arange(3)[None, :]
            zero = torch.tensor(0)
            allowed = mask.mask_mod(zero, zero, queries, keys)  # [L, S], True = attend
            ok = allowed.dtype == torch.bool and torch.equal(allowed, pattern)
            readings.add("allowed" if ok else f"unrecognised: BlockMask {describe(allowed)}")
        elif not isinstance(mask, Tensor) or mask.shape != (1, 1, 3, 3):
            return f"unrecognised: {type(mask).__name__} {getattr(mask, 'shape', '')}"
        elif mask.dtype == torch.bool:
            ok = torch.equal(mask[0, 0], pattern)
            readings.add("allowed" if ok else f"unrecognised: Boolean {describe(mask[0, 0])}")
        else:
            fill = torch.tensor(torch.finfo(dtype).min, dtype=dtype)
            expected = torch.where(pattern, torch.tensor(0.0, dtype=dtype), fill)
            ok = mask.dtype == dtype and torch.equal(mask[0, 0], expected)
            readings.add(
                "additive" if ok else f"unrecognised: {mask.dtype} {describe(mask[0, 0].float())}"
            )
    return readings.pop() if len(readings) == 1 else f"differs by dtype: {sorted(readings)}"


@probe("transformers.create_causal_mask.eager", framework=FRAMEWORK)
def create_causal_mask_eager() -> str:
    """What ``create_causal_mask`` returns for the eager implementation (a padded batch)."""
    return mask_function_reading("create_causal_mask", "eager")


@probe("transformers.create_causal_mask.sdpa", framework=FRAMEWORK)
def create_causal_mask_sdpa() -> str:
    """What ``create_causal_mask`` returns for the SDPA implementation (a padded batch)."""
    return mask_function_reading("create_causal_mask", "sdpa")


@probe("transformers.create_causal_mask.flex_attention", framework=FRAMEWORK)
def create_causal_mask_flex() -> str:
    """What ``create_causal_mask`` returns for FlexAttention (a padded batch)."""
    return mask_function_reading("create_causal_mask", "flex_attention")


@probe("transformers.create_bidirectional_mask.eager", framework=FRAMEWORK)
def create_bidirectional_mask_eager() -> str:
    """What ``create_bidirectional_mask`` returns for the eager implementation (a padded batch)."""
    return mask_function_reading("create_bidirectional_mask", "eager")


@probe("transformers.create_bidirectional_mask.sdpa", framework=FRAMEWORK)
def create_bidirectional_mask_sdpa() -> str:
    """What ``create_bidirectional_mask`` returns for the SDPA implementation (a padded batch)."""
    return mask_function_reading("create_bidirectional_mask", "sdpa")


# -- Gemma 3 with two images in one row ---------------------------------------------------------

TWO_IMAGES = torch.tensor([[0, 1, 1, 0, 1, 1, 0]])  # token_type_ids: images at 1-2 and 4-5


def _two_images(implementation: Implementation) -> str:
    """``"applied"`` when each image attends both ways within itself only, text causally.

    ``"ignored"`` when the row is causal throughout; an unrecognised pattern (image tokens of the
    first image seeing the second, later one) is reported with its weights.
    """
    model = tiny_gemma3(implementation)
    seen: dict[str, Tensor] = {}
    attention = model.language_model.layers[0].self_attn

    def keep(_module: object, args: tuple[Tensor, ...]) -> None:
        seen["x"] = args[0].detach().clone()

    hook = attention.o_proj.register_forward_pre_hook(keep)
    try:
        with torch.no_grad():
            model(
                inputs_embeds=torch.eye(WIDTH)[None, :7],
                token_type_ids=TWO_IMAGES,
                use_cache=False,
            )
    finally:
        hook.remove()
    x = seen["x"][0, :, :7].to(torch.float64)
    weights = x / x.sum(-1, keepdim=True)  # every position's one-hot is scaled alike
    causal = torch.ones(7, 7, dtype=torch.bool).tril()
    blocks = causal.clone()
    blocks[1, 2] = blocks[4, 5] = True  # each image's first token sees its second
    for word, allowed in (("applied", blocks), ("ignored", causal)):
        expected = allowed.to(torch.float64) / allowed.sum(-1, keepdim=True)
        if _close(weights, expected):
            return word
    return f"unrecognised: keys seen {describe((weights > 1e-6).to(torch.float64))}"


@probe("transformers.gemma3.token_type_ids.two_images", framework=FRAMEWORK)
def gemma3_two_images() -> str:
    """Two images in one row (``token_type_ids`` [0, 1, 1, 0, 1, 1, 0]), eager and SDPA."""
    transformers = framework_module("transformers")
    if not hasattr(transformers, "Gemma3Model"):
        return ABSENT
    return _agree({name: _two_images(name) for name in ("eager", "sdpa")})


# -- flash_attention_2 and a custom 4-D mask (CUDA and flash-attn only) -------------------------


@probe("transformers.llama.attention_mask.4d.flash_attention_2", framework=FRAMEWORK)
def flash_attention_2_custom_4d() -> str:
    """A 4-D additive mask (0 / ``finfo.min``) with ``attn_implementation="flash_attention_2"``.

    Needs a CUDA device and flash-attn (half precision).  ``"error"`` when the call is refused,
    ``"additive"`` when the mask is applied, ``"ignored"`` when the weights are causal only.
    """
    model = tiny_llama("flash_attention_2").to("cuda", torch.float16)  # type: ignore[arg-type]
    attention = model.layers[0].self_attn
    seen: dict[str, Tensor] = {}

    def keep(_module: object, args: tuple[Tensor, ...]) -> None:
        seen["x"] = args[0].detach().float().cpu()

    fill = torch.finfo(torch.float16).min
    additive = torch.where(PATTERN, 0.0, fill).to("cuda", torch.float16)[None, None]
    embeddings = torch.eye(WIDTH, device="cuda", dtype=torch.float16)[None, :3]
    hook = attention.o_proj.register_forward_pre_hook(keep)
    try:
        with torch.no_grad():
            # the call with a 2-D mask must run: a failure there is the probe's, not a refusal
            model(inputs_embeds=embeddings, attention_mask=torch.ones(1, 3, device="cuda"))
            try:
                model(inputs_embeds=embeddings, attention_mask=additive, use_cache=False)
            except Exception:
                return "error"
    finally:
        hook.remove()
    x = seen["x"][0, :, :3].to(torch.float64)
    weights = x / x.sum(-1, keepdim=True)  # [L, S]; half precision: compared to 1e-2
    intended = PATTERN.to(torch.float64) / PATTERN.sum(-1, keepdim=True)
    if torch.allclose(weights, intended, atol=1e-2):
        return "additive"
    causal = torch.ones(3, 3, dtype=torch.float64).tril()
    if torch.allclose(weights, causal / causal.sum(-1, keepdim=True), atol=1e-2):
        return "ignored"
    return f"unrecognised: weights {describe(weights)}"
