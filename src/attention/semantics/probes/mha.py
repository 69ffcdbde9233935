"""Probes for ``torch.nn.MultiheadAttention``, on each of its three code paths.

``nn.MultiheadAttention`` has three code paths, and some claims hold on one only:

* ``need_weights_true`` -- its own softmax in Python (the default: ``need_weights=True``);
* ``need_weights_false`` -- ``F.scaled_dot_product_attention`` after the masks become additive;
* ``fast_path`` -- the fused ``torch._native_multi_head_attention`` in eval mode without autograd.

:func:`run_mha` counts the calls into the last two while the module runs and raises
:class:`~attention.semantics.observe.ProbePathError` if the path it was asked for is not the one
that ran, so no row can report a path it did not take.  The module is a pass-through (zero query
and key projections, identity value and output projections, one-hot tokens): the same
"zero scores, one-hot values" input as :mod:`attention.semantics.probes.inputs`.

>>> mha_attn_mask_bool()
'forbidden'
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention.semantics.observe import (
    ProbePathError,
    additive_reading,
    boolean_polarity,
    call_outcome,
    causal_alignment,
    count_calls,
    describe,
    empty_row_outcome,
    same,
    warning_outcome,
)
from attention.semantics.probes.inputs import (
    ADDITIVE_ROW,
    DTYPE,
    EMPTY_ROW_ALLOWED,
    PATTERN,
    agreed,
)
from attention.semantics.registry import probe

__all__ = [
    "MHA_PATHS",
    "MhaPath",
    "mha_attn_mask_bool",
    "mha_attn_mask_float",
    "mha_attn_mask_with_is_causal_need_weights_false",
    "mha_dropout_eval_mode",
    "mha_fully_masked_row_fast_path",
    "mha_fully_masked_row_need_weights_false",
    "mha_fully_masked_row_need_weights_true",
    "mha_is_causal_key_padding_mask_need_weights_false",
    "mha_is_causal_need_weights_true",
    "mha_is_causal_without_attn_mask",
    "mha_is_causal_without_attn_mask_fast_path",
    "mha_key_padding_mask_bool",
    "mha_key_padding_mask_float",
    "mha_mixed_mask_dtypes",
    "mha_scale_default",
    "mha_weights",
    "run_mha",
]

MhaPath = Literal["need_weights_true", "need_weights_false", "fast_path"]
"""The three code paths of ``nn.MultiheadAttention.forward`` (see the module docstring)."""

MHA_PATHS: tuple[MhaPath, ...] = ("need_weights_true", "need_weights_false", "fast_path")


def _tokens() -> Tensor:
    """Three one-hot tokens [B=1, T=3, E=4], one tensor for query, key and value."""
    return torch.eye(3, 4, dtype=DTYPE)[None]


def _passthrough_mha(*, dropout: float = 0.0) -> nn.MultiheadAttention:
    """MHA with 2 heads of size 2 whose output[..., :3] is the weight matrix.

    ``W_Q = W_K = 0`` makes every score 0; ``W_V = W_O = I`` and one-hot tokens make each output
    row the weighted sum of one-hot rows, i.e. the weight row (both heads see the same mask).
    Two heads, ``batch_first=True`` and the same tensor for query, key and value keep the fast
    path available; whether it runs is decided by :func:`run_mha`.
    """
    mha = nn.MultiheadAttention(4, 2, dropout=dropout, batch_first=True, dtype=DTYPE)
    zeros, identity = torch.zeros(4, 4, dtype=DTYPE), torch.eye(4, dtype=DTYPE)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([zeros, zeros, identity]))  # [3E, E]: Q, K, V
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(identity)
        mha.out_proj.bias.zero_()
    return mha


def run_mha(mha: nn.MultiheadAttention, tokens: Tensor, path: MhaPath, **kwargs: Any) -> Tensor:
    """Run self-attention on ``tokens`` along ``path``; raise unless that path is the one that ran.

    The slow paths run in training mode (dropout is 0 unless the probe set it), which rules out
    the fast path; the fast path runs in eval mode under ``torch.no_grad()``.  Counting the calls
    into ``torch._native_multi_head_attention`` and ``F.scaled_dot_product_attention`` then shows
    which path actually ran.
    """
    output: Tensor
    with (
        count_calls(torch, "_native_multi_head_attention") as fused,
        count_calls(F, "scaled_dot_product_attention") as sdpa,
    ):
        if path == "fast_path":
            mha.eval()
            with torch.no_grad():
                if mha.training or torch.is_grad_enabled():
                    raise ProbePathError("fast path needs eval mode and no autograd")
                output, _ = mha(tokens, tokens, tokens, need_weights=False, **kwargs)
        else:
            mha.train()
            output, _ = mha(
                tokens, tokens, tokens, need_weights=path == "need_weights_true", **kwargs
            )
    expected = {"need_weights_true": (0, 0), "need_weights_false": (0, 1), "fast_path": (1, 0)}
    if (fused.calls, sdpa.calls) != expected[path]:
        raise ProbePathError(
            f"nn.MultiheadAttention did not take the {path} path: "
            f"torch._native_multi_head_attention ran {fused.calls} time(s), "
            f"F.scaled_dot_product_attention {sdpa.calls} time(s)"
        )
    return output.detach()  # [B, T, E]


def mha_weights(path: MhaPath, **kwargs: Any) -> Tensor:
    """Weights [L=3, S=3] of the pass-through MHA along ``path`` with the given masks."""
    return run_mha(_passthrough_mha(), _tokens(), path, **kwargs)[0, :, :3]


@probe("mha.attn_mask.bool")
def mha_attn_mask_bool() -> str:
    """What True means in MHA's Boolean ``attn_mask``, on each of its three code paths."""
    return agreed(
        {
            path: boolean_polarity(mha_weights(path, attn_mask=PATTERN), PATTERN)
            for path in MHA_PATHS
        }
    )


@probe("mha.attn_mask.float")
def mha_attn_mask_float() -> str:
    """How MHA reads a floating ``attn_mask`` (the fast path does not take float masks)."""
    mask = ADDITIVE_ROW.expand(3, 3)  # [L, S]
    return agreed(
        {
            path: additive_reading(mha_weights(path, attn_mask=mask), mask)
            for path in ("need_weights_true", "need_weights_false")
        }
    )


@probe("mha.key_padding_mask.bool")
def mha_key_padding_mask_bool() -> str:
    """What True means in MHA's Boolean ``key_padding_mask`` [B, S], on each code path."""
    # [B=1, S=3], True on key 1: its convention is what the probe finds out
    key_padding_mask = torch.tensor([[False, True, False]])
    pattern = key_padding_mask.expand(3, 3)  # the same keys for every query
    return agreed(
        {
            path: boolean_polarity(mha_weights(path, key_padding_mask=key_padding_mask), pattern)
            for path in MHA_PATHS
        }
    )


@probe("mha.key_padding_mask.float")
def mha_key_padding_mask_float() -> str:
    """How MHA reads a floating ``key_padding_mask`` [0, ln 3, -inf]."""
    return agreed(
        {
            path: additive_reading(
                mha_weights(path, key_padding_mask=ADDITIVE_ROW), ADDITIVE_ROW.expand(3, 3)
            )
            for path in ("need_weights_true", "need_weights_false")
        }
    )


def _is_causal_error(path: MhaPath) -> str:
    outcome, error = call_outcome(lambda: mha_weights(path, is_causal=True))
    if outcome == "error" and "is_causal" not in str(error):
        return f"unrecognised: {type(error).__name__}: {error}"
    return outcome


@probe("mha.is_causal.without_attn_mask")
def mha_is_causal_without_attn_mask() -> str:
    """Whether ``is_causal=True`` without an ``attn_mask`` is accepted on the slow paths."""
    return agreed(
        {path: _is_causal_error(path) for path in ("need_weights_true", "need_weights_false")}
    )


@probe("mha.is_causal.without_attn_mask.fast_path")
def mha_is_causal_without_attn_mask_fast_path() -> str:
    """What ``is_causal=True`` without an ``attn_mask`` does on the fast path."""
    causal = mha_weights("fast_path", is_causal=True)
    plain = mha_weights("fast_path")
    if same(causal, plain):
        return "ignored"
    if causal_alignment(causal) == "upper_left":
        return "applied"
    return f"unrecognised: weights {describe(causal)}"


@probe("mha.attn_mask.with_is_causal.need_weights_false")
def mha_attn_mask_with_is_causal_need_weights_false() -> str:
    """Whether an explicit ``attn_mask`` survives ``is_causal=True`` with ``need_weights=False``.

    The mask lets every query see every key (forbidden convention: all False); if the output is
    causal, the mask was dropped in favour of the hint.
    """
    nothing_forbidden = torch.zeros(3, 3, dtype=torch.bool)
    weights = mha_weights("need_weights_false", attn_mask=nothing_forbidden, is_causal=True)
    if causal_alignment(weights) == "upper_left":
        return "ignored"
    if same(weights, torch.full_like(weights, 1 / 3)):
        return "applied"
    return f"unrecognised: weights {describe(weights)}"


@probe("mha.is_causal.key_padding_mask.need_weights_false")
def mha_is_causal_key_padding_mask_need_weights_false() -> str:
    """``is_causal=True`` with an ``attn_mask`` and a ``key_padding_mask``, ``need_weights=False``.

    The ``attn_mask`` forbids nothing and the padding mask forbids key 1.  Padding alone gives
    every query keys 0 and 2; the hint applied on top would leave query 0 with key 0 only.
    """
    nothing_forbidden = torch.zeros(3, 3, dtype=torch.bool)  # [L, S], forbidden convention
    key_padding_mask = torch.tensor([[False, True, False]])  # [B, S]: key 1 is padding
    weights = mha_weights(
        "need_weights_false",
        attn_mask=nothing_forbidden,
        key_padding_mask=key_padding_mask,
        is_causal=True,
    )
    padding_only = ~key_padding_mask.expand(3, 3)  # [L, S], allowed convention
    if torch.equal(weights > 0, padding_only):
        return "ignored"  # the hint is ignored: the attn_mask and the padding mask apply
    if torch.equal(weights > 0, padding_only & torch.ones(3, 3, dtype=torch.bool).tril()):
        return "applied"
    return f"unrecognised: weights {describe(weights)}"


@probe("mha.is_causal.need_weights_true")
def mha_is_causal_need_weights_true() -> str:
    """Whether ``is_causal=True`` does anything beyond ``attn_mask`` with ``need_weights=True``."""
    nothing_forbidden = torch.zeros(3, 3, dtype=torch.bool)
    weights = mha_weights("need_weights_true", attn_mask=nothing_forbidden, is_causal=True)
    if same(weights, torch.full_like(weights, 1 / 3)):
        return "ignored"
    if causal_alignment(weights) == "upper_left":
        return "applied"
    return f"unrecognised: weights {describe(weights)}"


@probe("mha.mixed_mask_dtypes")
def mha_mixed_mask_dtypes() -> str:
    """A Boolean ``key_padding_mask`` with a float ``attn_mask``: warning, silence or error."""
    forbidden_padding = torch.tensor([[False, False, True]])  # [B, S], True = padded key
    additive = torch.zeros(3, 3, dtype=DTYPE)  # [L, S]
    return warning_outcome(
        lambda: mha_weights(
            "need_weights_true", key_padding_mask=forbidden_padding, attn_mask=additive
        ),
        mentioning="key_padding_mask",
    )


def _mha_empty_row(path: MhaPath) -> str:
    weights = mha_weights(path, attn_mask=~EMPTY_ROW_ALLOWED)  # forbidden convention for MHA
    return empty_row_outcome(weights[1])


@probe("mha.fully_masked_row.need_weights_true")
def mha_fully_masked_row_need_weights_true() -> str:
    """Output of a fully masked query row when MHA runs its own softmax (need_weights=True)."""
    return _mha_empty_row("need_weights_true")


@probe("mha.fully_masked_row.need_weights_false")
def mha_fully_masked_row_need_weights_false() -> str:
    """Output of a fully masked query row when MHA calls SDPA (need_weights=False)."""
    return _mha_empty_row("need_weights_false")


@probe("mha.fully_masked_row.fast_path")
def mha_fully_masked_row_fast_path() -> str:
    """Output of a fully masked query row on the inference fast path."""
    return _mha_empty_row("fast_path")


@probe("mha.scale.default")
def mha_scale_default() -> str:
    """The scale MHA applies: 1/sqrt(head dim), 1/sqrt(embed_dim) or none, on every path."""
    mha = nn.MultiheadAttention(4, 2, batch_first=True, dtype=DTYPE)  # head dim d_k = 2
    identity = torch.eye(4, dtype=DTYPE)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([identity, identity, identity]))  # Q = K = V = tokens
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(identity)
        mha.out_proj.bias.zero_()
    tokens = torch.tensor([[[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, -1.0]]])
    tokens = tokens.to(DTYPE)  # [B=1, T=3, E=4]
    heads = tokens[0].reshape(3, 2, 2).transpose(0, 1)  # [H, T, d_k]
    raw = heads @ heads.transpose(-2, -1)  # [H, T, T] unscaled scores

    def output_for(scale: float) -> Tensor:
        mixed = torch.softmax(raw * scale, dim=-1) @ heads  # [H, T, d_k]
        return mixed.transpose(0, 1).reshape(1, 3, 4)  # [B, T, E], heads concatenated

    candidates = {"1/sqrt(d_k)": 1 / math.sqrt(2), "1/sqrt(embed_dim)": 1 / 2, "1": 1.0}
    seen: dict[str, str] = {}
    for path in MHA_PATHS:
        output = run_mha(mha, tokens, path)
        match = [word for word, scale in candidates.items() if same(output, output_for(scale))]
        word = match[0] if match else "none of the candidates"
        seen[path] = word if word == "1/sqrt(d_k)" else f"unrecognised: scale {word}"
    return agreed(seen)


@probe("mha.dropout.eval_mode")
def mha_dropout_eval_mode() -> str:
    """Whether MHA's ``dropout=0.5`` acts in eval mode (with autograd on: the slow paths)."""
    mha = _passthrough_mha(dropout=0.5).eval()
    tokens = _tokens()
    seen: dict[str, str] = {}
    for need_weights in (True, False):
        with (
            torch.random.fork_rng(devices=[]),
            count_calls(torch, "_native_multi_head_attention") as fused,
        ):
            torch.manual_seed(0)
            output, _ = mha(tokens, tokens, tokens, need_weights=need_weights)
        if fused.calls or mha.training:
            raise ProbePathError("expected the slow path in eval mode")
        weights = output.detach()[0, :, :3]
        uniform = torch.full_like(weights, 1 / 3)
        seen[f"need_weights={need_weights}"] = "ignored" if same(weights, uniform) else "applied"
    return agreed(seen)
