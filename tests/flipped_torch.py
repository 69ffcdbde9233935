"""Torches that behave differently: each flip swaps one torch function for a variant that breaks
one documented or observed behaviour, so the tests can show that the matching row of the
mask-semantics table notices.

Every flip is a function ``flip(monkeypatch)`` that installs its variant with pytest's
``monkeypatch`` (undone after the test).  The variants call the real function underneath and
change only the behaviour under test.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.attention import bias as attention_bias
from torch.nn.attention import flex_attention as flex

Flip = Callable[[pytest.MonkeyPatch], None]

REAL_SDPA = F.scaled_dot_product_attention
REAL_CANONICAL_MASK = F._canonical_mask
REAL_SOFTMAX = F.softmax
REAL_MHA_FORWARD = F.multi_head_attention_forward
REAL_MODULE_FORWARD = nn.MultiheadAttention.forward
REAL_NATIVE_MHA = torch._native_multi_head_attention
REAL_CREATE_BLOCK_MASK = flex.create_block_mask
REAL_FLEX_ATTENTION = flex.flex_attention
REAL_ENCODER_FORWARD = nn.TransformerEncoder.forward


def _plain_tensor(mask: object) -> bool:
    return type(mask) is Tensor


def _install_sdpa(
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Tensor, Tensor, Tensor, dict[str, Any]], Tensor | None],
    *,
    nested: bool = False,
) -> None:
    """Replace F.scaled_dot_product_attention; ``change`` may edit the arguments or answer itself.

    ``change`` sees dense inputs only, or (``nested``) nested inputs only; the others reach the
    real function untouched, so a flip of the dense behaviour leaves the nested rows alone.
    """

    def sdpa(
        query: Tensor,
        key: Tensor,
        value: Tensor,
        attn_mask: Tensor | None = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> Tensor:
        arguments: dict[str, Any] = {
            "attn_mask": attn_mask,
            "dropout_p": dropout_p,
            "is_causal": is_causal,
            "scale": scale,
            "enable_gqa": enable_gqa,
        }
        if isinstance(attn_mask, attention_bias.CausalBias):
            # the real function hands a CausalBias to its own dispatch, which calls back into
            # F.scaled_dot_product_attention (this variant) with a plain mask or is_causal=True
            return attention_bias.CausalBias._dispatch(query, key, value, **arguments)
        if query.is_nested != nested:
            return REAL_SDPA(query, key, value, **arguments)
        answer = change(query, key, value, arguments)
        if answer is not None:
            return answer
        return REAL_SDPA(query, key, value, **arguments)

    monkeypatch.setattr(F, "scaled_dot_product_attention", sdpa)


def sdpa_bool_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA reads a Boolean attn_mask as True = masked out (the MHA convention)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        mask = arguments["attn_mask"]
        if _plain_tensor(mask) and mask.dtype == torch.bool:
            arguments["attn_mask"] = ~mask

    _install_sdpa(monkeypatch, change)


def sdpa_float_as_bool(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA reads a float attn_mask as Boolean: nonzero entries may attend."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        mask = arguments["attn_mask"]
        if _plain_tensor(mask) and mask.is_floating_point():
            arguments["attn_mask"] = mask != 0

    _install_sdpa(monkeypatch, change)


def _lower_right(length: int, source: int, device: torch.device) -> Tensor:
    ones = torch.ones(length, source, dtype=torch.bool, device=device)
    return ones.tril(diagonal=source - length)


def sdpa_causal_lower_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA's is_causal anchors the triangle at the bottom-right, as flash-attn does."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        if arguments["is_causal"] and arguments["attn_mask"] is None:
            arguments["attn_mask"] = _lower_right(q.size(-2), k.size(-2), q.device)
            arguments["is_causal"] = False

    _install_sdpa(monkeypatch, change)


def sdpa_causal_with_mask_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kernel accepts is_causal with attn_mask and applies both (the math one included)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        mask = arguments["attn_mask"]
        if arguments["is_causal"] and _plain_tensor(mask) and mask.dtype == torch.bool:
            causal = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
            arguments["attn_mask"] = mask & causal
            arguments["is_causal"] = False

    _install_sdpa(monkeypatch, change)


def sdpa_causal_with_mask_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kernel rejects is_causal with attn_mask, as the documentation says."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        if arguments["is_causal"] and arguments["attn_mask"] is not None:
            raise RuntimeError("Explicit attn_mask should not be set when is_causal=True")

    _install_sdpa(monkeypatch, change)


def sdpa_plain_softmax(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA runs the documented reference code, plain softmax included: empty rows are NaN."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> Tensor | None:
        mask = arguments["attn_mask"]
        if not _plain_tensor(mask) or arguments["is_causal"]:
            return None
        scale = arguments["scale"] or 1 / math.sqrt(q.size(-1))
        scores = q @ k.transpose(-2, -1) * scale  # [.., L, S]
        if mask.dtype == torch.bool:
            bias = torch.zeros_like(mask, dtype=q.dtype).masked_fill(~mask, float("-inf"))
        else:
            bias = mask.to(q.dtype)  # the reference adds the mask into a bias of the query's dtype
        return torch.softmax(scores + bias, dim=-1) @ v

    _install_sdpa(monkeypatch, change)


def sdpa_dropout_follows_grad_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA switches dropout off when autograd is off, as if it knew about evaluation."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        if not torch.is_grad_enabled():
            arguments["dropout_p"] = 0.0

    _install_sdpa(monkeypatch, change)


def sdpa_scale_one_over_d(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA's default scale is 1/d_k instead of 1/sqrt(d_k)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        if arguments["scale"] is None:
            arguments["scale"] = 1 / q.size(-1)

    _install_sdpa(monkeypatch, change)


def sdpa_hidden_keys_zeroed(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA never reads a key or value that the mask hides from every query (as a kernel that
    skips masked-out key blocks would): a NaN there cannot reach the output."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> Tensor | None:
        mask = arguments["attn_mask"]
        if not _plain_tensor(mask):
            return None
        allowed = mask if mask.dtype == torch.bool else ~torch.isneginf(mask)  # [.., L, S]
        hidden = ~allowed.any(dim=-2)[..., None]  # [.., S, 1]: no query may attend to it
        return REAL_SDPA(q, k.masked_fill(hidden, 0.0), v.masked_fill(hidden, 0.0), **arguments)

    _install_sdpa(monkeypatch, change)


def sdpa_mask_dtype_must_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA rejects a float attn_mask whose dtype is not the query's (as torch 2.0 and 2.1 did)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        mask = arguments["attn_mask"]
        if _plain_tensor(mask) and mask.is_floating_point() and mask.dtype != q.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {mask.dtype} and query.dtype: {q.dtype} instead."
            )

    _install_sdpa(monkeypatch, change)


def sdpa_gqa_any_head_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA with enable_gqa shares key/value heads among query heads even when the counts do not
    divide (query head h reads key/value head h * Hkv // Hq)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> Tensor | None:
        query_heads, kv_heads = q.size(-3), k.size(-3)
        if not arguments["enable_gqa"] or query_heads % kv_heads == 0:
            return None
        index = torch.arange(query_heads, device=k.device) * kv_heads // query_heads
        shared = {**arguments, "enable_gqa": False}
        return REAL_SDPA(q, k.index_select(-3, index), v.index_select(-3, index), **shared)

    _install_sdpa(monkeypatch, change)


def sdpa_heads_must_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without enable_gqa, SDPA requires as many key/value heads as query heads (as its fused
    kernels do) instead of broadcasting a single one."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        if q.dim() == 4 and not arguments["enable_gqa"] and q.size(1) != k.size(1):
            raise RuntimeError(
                f"Expected query, key and value to have the same number of heads, got "
                f"{q.size(1)} query and {k.size(1)} key/value heads"
            )

    _install_sdpa(monkeypatch, change)


def _install_canonical_mask(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[Tensor], Tensor], *, warn: bool = True
) -> None:
    """Replace F._canonical_mask, which turns MHA and Transformer masks into additive ones."""

    def canonical_mask(
        mask: Tensor | None,
        mask_name: str,
        other_type: torch.dtype | None,
        other_name: str,
        target_type: torch.dtype,
        check_other: bool = True,
    ) -> Tensor | None:
        if mask is not None:
            mask = change(mask)
        return REAL_CANONICAL_MASK(
            mask, mask_name, other_type, other_name, target_type, check_other and warn
        )

    monkeypatch.setattr(F, "_canonical_mask", canonical_mask)


def mha_bool_as_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA and the Transformer layers read Boolean masks as True = may attend."""
    _install_canonical_mask(monkeypatch, lambda m: ~m if m.dtype == torch.bool else m)


def mha_float_as_bool(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA reads a float mask as Boolean: nonzero entries are masked out."""
    _install_canonical_mask(monkeypatch, lambda m: m != 0 if m.is_floating_point() else m)


def mha_mixed_dtypes_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA accepts a Boolean key_padding_mask with a float attn_mask without a warning."""
    _install_canonical_mask(monkeypatch, lambda m: m, warn=False)


def safe_softmax(monkeypatch: pytest.MonkeyPatch) -> None:
    """F.softmax returns zeros for a row that is all -inf (so MHA's own softmax would too)."""

    def softmax(input: Tensor, dim: int | None = None, *args: Any, **kwargs: Any) -> Tensor:
        out: Tensor = REAL_SOFTMAX(input, dim, *args, **kwargs)
        empty = torch.isneginf(input).all(dim=dim, keepdim=True)
        return out.masked_fill(empty, 0.0)

    monkeypatch.setattr(F, "softmax", softmax)


def fast_path_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fused MHA kernel returns zeros instead of NaN for a fully masked row."""

    def native(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
        output, weights = REAL_NATIVE_MHA(*args, **kwargs)
        return torch.nan_to_num(output, nan=0.0), weights

    monkeypatch.setattr(torch, "_native_multi_head_attention", native)


def _install_mha_forward(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[tuple[Any, ...], dict[str, Any]], None]
) -> None:
    """Replace F.multi_head_attention_forward (MHA's slow paths); ``change`` edits the kwargs."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        change(args, kwargs)
        return REAL_MHA_FORWARD(*args, **kwargs)

    monkeypatch.setattr(F, "multi_head_attention_forward", forward)


def _causal_forbidden(length: int) -> Tensor:
    return torch.ones(length, length, dtype=torch.bool).triu(diagonal=1)


def mha_is_causal_builds_mask(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA builds the causal mask itself when is_causal=True comes without an attn_mask."""

    def forward(self: nn.MultiheadAttention, query: Tensor, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("is_causal") and kwargs.get("attn_mask") is None:
            kwargs["attn_mask"] = _causal_forbidden(query.size(-2))
        return REAL_MODULE_FORWARD(self, query, *args, **kwargs)

    monkeypatch.setattr(nn.MultiheadAttention, "forward", forward)


def mha_mask_beats_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA keeps an explicit attn_mask and drops the is_causal hint."""

    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kwargs.get("attn_mask") is not None:
            kwargs["is_causal"] = False

    _install_mha_forward(monkeypatch, change)


def mha_hint_with_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """With need_weights=True, MHA adds the causal triangle to the attn_mask it was given."""

    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        mask = kwargs.get("attn_mask")
        if kwargs.get("is_causal") and kwargs.get("need_weights") and mask is not None:
            causal = torch.zeros(mask.shape[-2:], dtype=mask.dtype)
            causal = causal.masked_fill(_causal_forbidden(mask.size(-1)), float("-inf"))
            kwargs["attn_mask"] = mask + causal

    _install_mha_forward(monkeypatch, change)


def mha_hint_always_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    """With is_causal=True, MHA adds the causal triangle to the attn_mask it was given on every
    path, a key_padding_mask or not."""

    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        mask = kwargs.get("attn_mask")
        if kwargs.get("is_causal") and mask is not None:
            forbidden = _causal_forbidden(mask.size(-1))
            if mask.dtype == torch.bool:
                kwargs["attn_mask"] = mask | forbidden
            else:
                kwargs["attn_mask"] = mask.masked_fill(forbidden, float("-inf"))

    _install_mha_forward(monkeypatch, change)


def mha_dropout_in_eval(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA applies its dropout whatever its training flag says."""

    def change(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        kwargs["training"] = True

    _install_mha_forward(monkeypatch, change)


def mha_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """MHA never takes its fast path (torch.backends.mha switched off)."""
    monkeypatch.setattr(torch.backends.mha, "get_fastpath_enabled", lambda: False)


def _install_encoder_forward(
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[nn.TransformerEncoder, Tensor, Tensor | None, Tensor], Tensor],
    *,
    before: Callable[[nn.TransformerEncoder], None] = lambda encoder: None,
) -> None:
    """Replace nn.TransformerEncoder.forward: ``before`` edits the module before the real forward,
    ``change(encoder, src, src_key_padding_mask, output)`` edits what it returns."""

    def forward(self: nn.TransformerEncoder, src: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        before(self)
        output: Tensor = REAL_ENCODER_FORWARD(self, src, *args, **kwargs)
        return change(self, src, kwargs.get("src_key_padding_mask"), output)

    monkeypatch.setattr(nn.TransformerEncoder, "forward", forward)


def encoder_zeroes_padding(monkeypatch: pytest.MonkeyPatch) -> None:
    """nn.TransformerEncoder returns zeros at padded positions on every path, as its
    nested-tensor fast path does."""

    def change(
        encoder: nn.TransformerEncoder, src: Tensor, padding: Tensor | None, output: Tensor
    ) -> Tensor:
        if padding is None:
            return output
        padded = padding if padding.dtype == torch.bool else torch.isneginf(padding)  # [B, T]
        if not encoder.layers[0].self_attn.batch_first:
            padded = padded.transpose(0, 1)  # [T, B]
        return output.masked_fill(padded[..., None], 0.0)

    _install_encoder_forward(monkeypatch, change)


def encoder_without_nested_tensor(monkeypatch: pytest.MonkeyPatch) -> None:
    """nn.TransformerEncoder never packs the batch into a nested tensor (enable_nested_tensor has
    no effect): its fused layers compute every position, padded ones included."""

    def before(encoder: nn.TransformerEncoder) -> None:
        encoder.use_nested_tensor = False

    _install_encoder_forward(
        monkeypatch, lambda encoder, src, padding, output: output, before=before
    )


def square_subsequent_mask_bool(monkeypatch: pytest.MonkeyPatch) -> None:
    """generate_square_subsequent_mask returns a Boolean mask (True = the future)."""
    monkeypatch.setattr(
        nn.Transformer,
        "generate_square_subsequent_mask",
        staticmethod(lambda size, device=None, dtype=None: _causal_forbidden(size)),
    )


def lower_right_is_upper_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """causal_lower_right builds the upper-left triangle."""
    monkeypatch.setattr(attention_bias, "causal_lower_right", attention_bias.causal_upper_left)


def upper_left_is_lower_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """causal_upper_left builds the lower-right triangle."""
    monkeypatch.setattr(attention_bias, "causal_upper_left", attention_bias.causal_lower_right)


def flex_mask_mod_inverted(monkeypatch: pytest.MonkeyPatch) -> None:
    """flex_attention treats a mask_mod's True as masked out."""

    def create_block_mask(mask_mod: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Any:
        def inverted(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
            return ~mask_mod(batch, head, q_idx, kv_idx)

        return REAL_CREATE_BLOCK_MASK(inverted, *args, **kwargs)

    monkeypatch.setattr(flex, "create_block_mask", create_block_mask)


def flex_block_mask_adjusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """flex_attention adjusts a BlockMask made for other sequence lengths to the inputs'
    (``BlockMask._adjust``) instead of rejecting it."""

    def flex_attention(query: Tensor, key: Tensor, value: Tensor, *args: Any, **kwargs: Any) -> Any:
        block_mask = kwargs.get("block_mask")
        lengths = (query.size(-2), key.size(-2))
        if block_mask is not None and tuple(block_mask.seq_lengths) != lengths:
            kwargs["block_mask"] = block_mask._adjust(*lengths)
        return REAL_FLEX_ATTENTION(query, key, value, *args, **kwargs)

    monkeypatch.setattr(flex, "flex_attention", flex_attention)


def flex_causal_lower_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """create_block_mask lines up the last query with the last key: q_idx counts from
    KV_LEN - Q_LEN, so ``q_idx >= kv_idx`` is the lower-right triangle."""

    def create_block_mask(mask_mod: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Any:
        lengths = [*args[2:4], kwargs.get("Q_LEN"), kwargs.get("KV_LEN")]
        q_len, kv_len = (length for length in lengths if length is not None)

        def shifted(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
            return mask_mod(batch, head, q_idx + (kv_len - q_len), kv_idx)

        return REAL_CREATE_BLOCK_MASK(shifted, *args, **kwargs)

    monkeypatch.setattr(flex, "create_block_mask", create_block_mask)


def flex_broadcast_first_item_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """flex_attention applies a BlockMask of batch size 1 to batch item 0 only."""

    real: Any = REAL_FLEX_ATTENTION  # called with the caller's own arguments

    def flex_attention(query: Tensor, key: Tensor, value: Tensor, *args: Any, **kwargs: Any) -> Any:
        block_mask = kwargs.pop("block_mask", None)
        if block_mask is None or block_mask.shape[0] != 1 or query.size(0) == 1:
            return real(query, key, value, *args, block_mask=block_mask, **kwargs)
        first = real(query[:1], key[:1], value[:1], *args, block_mask=block_mask, **kwargs)
        rest = real(query[1:], key[1:], value[1:], *args, **kwargs)
        return torch.cat([first, rest])

    monkeypatch.setattr(flex, "flex_attention", flex_attention)


def flex_mask_mod_past_lengths(monkeypatch: pytest.MonkeyPatch) -> None:
    """create_block_mask also calls the mask_mod at the last index of the last 128 block, past
    Q_LEN and KV_LEN (as torch 2.5 did)."""

    def create_block_mask(mask_mod: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Any:
        lengths = [*args[2:4], kwargs.get("Q_LEN"), kwargs.get("KV_LEN")]
        q_len, kv_len = (length for length in lengths if length is not None)
        last = [torch.tensor(-(-length // 128) * 128 - 1) for length in (q_len, kv_len)]
        mask_mod(torch.tensor(0), torch.tensor(0), *last)
        return REAL_CREATE_BLOCK_MASK(mask_mod, *args, **kwargs)

    monkeypatch.setattr(flex, "create_block_mask", create_block_mask)


def nested_mask_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA on jagged nested tensors accepts an attn_mask (and drops it)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        arguments["attn_mask"] = None

    _install_sdpa(monkeypatch, change, nested=True)


def nested_causal_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA on jagged nested tensors accepts is_causal=True on the CPU (and drops it)."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> None:
        arguments["is_causal"] = False

    _install_sdpa(monkeypatch, change, nested=True)


def nested_padded_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDPA on jagged nested tensors pads the batch and lets every query see the padding keys."""

    def change(q: Tensor, k: Tensor, v: Tensor, arguments: dict[str, Any]) -> Tensor | None:
        if arguments["attn_mask"] is not None or arguments["is_causal"]:
            return None  # the calls the real function rejects stay rejected
        lengths = [item.size(-2) for item in q.unbind()]  # each item [H, j, D]
        padded = [t.to_padded_tensor(0.0) for t in (q, k, v)]  # each [B, H, max j, D]
        dense = REAL_SDPA(padded[0], padded[1], padded[2])  # padding keys take part
        rows = [dense[b, :, :length].transpose(0, 1) for b, length in enumerate(lengths)]
        return torch.nested.nested_tensor(rows, layout=torch.jagged).transpose(1, 2)

    _install_sdpa(monkeypatch, change, nested=True)
