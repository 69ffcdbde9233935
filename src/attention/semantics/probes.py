"""Live probes for PyTorch: one function per claim, each calling the real API on a tiny input.

Every attention call gets zero queries and keys (so every score is 0) and the identity as values
(so each output row *is* that query's weight row); :mod:`attention.semantics.observe` reads the
result as a vocabulary word.  Every probe looks its torch function up at call time
(``F.scaled_dot_product_attention``, not a saved reference), so a test can swap in a torch that
behaves differently and watch the row fail.

``nn.MultiheadAttention`` has three code paths, and some claims hold on one only:

* ``need_weights_true`` -- its own softmax in Python (the default: ``need_weights=True``);
* ``need_weights_false`` -- ``F.scaled_dot_product_attention`` after the masks become additive;
* ``fast_path`` -- the fused ``torch._native_multi_head_attention`` in eval mode without autograd.

:func:`_run_mha` counts the calls into the last two while the module runs and raises
:class:`~attention.semantics.observe.ProbePathError` if the path it was asked for is not the one
that ran, so no row can report a path it did not take.

>>> sdpa_attn_mask_bool()
'allowed'
>>> mha_attn_mask_bool()
'forbidden'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention import bias as attention_bias
from torch.nn.attention import flex_attention as flex

from attention.semantics.observe import (
    ProbePathError,
    additive_reading,
    boolean_polarity,
    call_outcome,
    causal_alignment,
    count_calls,
    describe,
    empty_row_outcome,
    mask_convention,
    same,
    warning_outcome,
)
from attention.semantics.registry import probe

__all__ = [
    "EMPTY_ROW_ALLOWED",
    "PATTERN",
    "MhaPath",
    "bias_causal_lower_right_alignment",
    "bias_causal_lower_right_fully_masked_row",
    "bias_causal_upper_left_alignment",
    "flex_attention_fully_masked_row",
    "flex_attention_mask_mod",
    "mha_attn_mask_bool",
    "mha_attn_mask_float",
    "mha_attn_mask_with_is_causal_need_weights_false",
    "mha_dropout_eval_mode",
    "mha_fully_masked_row_fast_path",
    "mha_fully_masked_row_need_weights_false",
    "mha_fully_masked_row_need_weights_true",
    "mha_is_causal_need_weights_true",
    "mha_is_causal_without_attn_mask",
    "mha_is_causal_without_attn_mask_fast_path",
    "mha_key_padding_mask_bool",
    "mha_key_padding_mask_float",
    "mha_mixed_mask_dtypes",
    "mha_scale_default",
    "sdpa_attn_mask_bool",
    "sdpa_attn_mask_bool_cuda",
    "sdpa_attn_mask_float",
    "sdpa_dropout_p_without_training_flag",
    "sdpa_fully_masked_row",
    "sdpa_fully_masked_row_additive",
    "sdpa_is_causal_alignment",
    "sdpa_is_causal_alignment_cuda",
    "sdpa_is_causal_with_attn_mask",
    "sdpa_is_causal_with_attn_mask_math",
    "sdpa_scale_default",
    "softmax_all_neg_inf_row",
    "transformer_encoder_layer_src_key_padding_mask_bool",
    "transformer_encoder_layer_src_key_padding_mask_bool_fast_path",
    "transformer_generate_square_subsequent_mask",
]

DTYPE = torch.float64
"""Probes compute in float64 so that a weight of 1/3 is checked to many digits."""

PATTERN = torch.tensor(
    [
        [False, True, False],
        [True, False, True],
        [False, False, True],
    ]
)
"""A 3x3 Boolean mask with a True and a False in every row, deliberately in no convention: it is
handed to an API whose convention is under test.  Either reading leaves each query a key, and
the two readings give different weights, so the weights tell which one the API used."""

EMPTY_ROW_ALLOWED = torch.tensor(
    [
        [True, True, True],
        [False, False, False],
        [True, False, False],
    ]
)
"""3x3 **allowed** mask (True = may attend) whose query 1 may attend to no key."""

ADDITIVE_ROW = torch.tensor([[0.0, math.log(3.0), float("-inf")]], dtype=DTYPE)
"""An additive row [0, ln 3, -inf]: read as additive it gives weights [0.25, 0.75, 0]."""

MhaPath = Literal["need_weights_true", "need_weights_false", "fast_path"]
"""The three code paths of ``nn.MultiheadAttention.forward`` (see the module docstring)."""

MHA_PATHS: tuple[MhaPath, ...] = ("need_weights_true", "need_weights_false", "fast_path")

CPU_KERNELS = (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION)
"""The two SDPA kernels a CPU build has: the reference math and a fused flash attention."""


# --- scaled_dot_product_attention ----------------------------------------------------------


def _sdpa_weights(
    length: int,
    source: int,
    *,
    device: str = "cpu",
    dtype: torch.dtype = DTYPE,
    heads_axis: bool = True,
    **kwargs: Any,
) -> Tensor:
    """Call ``F.scaled_dot_product_attention`` so that its output is the weight matrix [L, S].

    The inputs are 4-D ``[B, H, ., D]``, or 3-D ``[B, ., D]`` with ``heads_axis=False`` (the
    rank can change which CPU kernel runs).
    """
    lead = (1, 1) if heads_axis else (1,)
    query = torch.zeros(*lead, length, 8, dtype=dtype, device=device)  # [.., L, D]: scores 0
    key = torch.zeros(*lead, source, 8, dtype=dtype, device=device)  # [.., S, D]
    value = torch.eye(source, 8, dtype=dtype, device=device).expand(*lead, source, 8)  # one-hot
    output = F.scaled_dot_product_attention(query, key, value, **kwargs)  # [.., L, 8]
    return output.reshape(length, 8)[:, :source].to("cpu", DTYPE)  # [L, S]


def _each_cpu_kernel(observe: Callable[[], str]) -> str:
    """``observe()`` with the default kernel choice, then with each CPU kernel forced in turn.

    On CPU, SDPA has a math kernel and a fused flash-attention kernel; the default choice depends
    on the inputs.  Forcing one with ``sdpa_kernel`` is the evidence of which one ran: a kernel
    that cannot take the call raises instead of handing it to another.
    """
    seen = {"default": observe()}
    for backend in CPU_KERNELS:
        with sdpa_kernel(backend):
            seen[backend.name.lower()] = observe()
    return _agreed(seen)


@probe("sdpa.attn_mask.bool")
def sdpa_attn_mask_bool() -> str:
    """What True means in SDPA's Boolean ``attn_mask``: which keys receive weight."""
    return _each_cpu_kernel(
        lambda: boolean_polarity(_sdpa_weights(3, 3, attn_mask=PATTERN), PATTERN)
    )


@probe("sdpa.attn_mask.float")
def sdpa_attn_mask_float() -> str:
    """How SDPA reads a floating ``attn_mask`` [0, ln 3, -inf]: added to the scores, or not."""
    mask = ADDITIVE_ROW.expand(3, 3)  # [L, S]
    return _each_cpu_kernel(lambda: additive_reading(_sdpa_weights(3, 3, attn_mask=mask), mask))


@probe("sdpa.is_causal.alignment")
def sdpa_is_causal_alignment() -> str:
    """Where ``is_causal=True`` puts the triangle when there are fewer queries than keys."""
    return _each_cpu_kernel(lambda: causal_alignment(_sdpa_weights(2, 4, is_causal=True)))


def _causal_with_mask(*, heads_axis: bool = True) -> str:
    """``is_causal=True`` plus an ``attn_mask``: rejected, or which of the two was applied.

    The mask and the causal triangle differ, and so does their intersection, so the weights tell
    whether the call kept the mask, the triangle, or both.
    """
    allowed = torch.tensor([[True, True, False], [False, True, True], [True, False, True]])
    causal = torch.ones(3, 3, dtype=torch.bool).tril()
    weights: list[Tensor] = []
    outcome, _ = call_outcome(
        lambda: weights.append(
            _sdpa_weights(3, 3, attn_mask=allowed, is_causal=True, heads_axis=heads_axis)
        )
    )
    if outcome == "error":
        return "error"
    receives = weights[0] > 0  # [L, S]
    if torch.equal(receives, allowed & causal):
        return "ok"  # accepted, and both masks applied
    if torch.equal(receives, allowed):
        return "unrecognised: accepted, is_causal ignored"
    if torch.equal(receives, causal):
        return "unrecognised: accepted, attn_mask ignored"
    return f"unrecognised: accepted, weights {describe(weights[0])}"


@probe("sdpa.is_causal_with_attn_mask")
def sdpa_is_causal_with_attn_mask() -> str:
    """``is_causal=True`` with an ``attn_mask``, 4-D inputs: default choice and CPU flash kernel.

    Both must agree: the row says the default choice for these inputs is the flash kernel.
    """
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        forced = _causal_with_mask()
    return _agreed({"default": _causal_with_mask(), "flash_attention forced": forced})


@probe("sdpa.is_causal_with_attn_mask.math")
def sdpa_is_causal_with_attn_mask_math() -> str:
    """The same call on the math kernel: forced with ``SDPBackend.MATH``, and chosen for 3-D inputs.

    The 3-D case shows the choice without forcing it: the default selection must send it to a
    kernel that rejects the combination.
    """
    with sdpa_kernel(SDPBackend.MATH):
        forced = _causal_with_mask()
    return _agreed({"math forced": forced, "3-D inputs": _causal_with_mask(heads_axis=False)})


@probe("sdpa.fully_masked_row")
def sdpa_fully_masked_row() -> str:
    """Output of a query whose Boolean ``attn_mask`` row is all False, on each CPU kernel."""
    return _each_cpu_kernel(
        lambda: empty_row_outcome(_sdpa_weights(3, 3, attn_mask=EMPTY_ROW_ALLOWED)[1])
    )


@probe("sdpa.fully_masked_row.additive")
def sdpa_fully_masked_row_additive() -> str:
    """Output of a query whose additive ``attn_mask`` row is all -inf, on each CPU kernel."""
    additive = torch.zeros(3, 3, dtype=DTYPE).masked_fill(~EMPTY_ROW_ALLOWED, float("-inf"))
    return _each_cpu_kernel(lambda: empty_row_outcome(_sdpa_weights(3, 3, attn_mask=additive)[1]))


@probe("sdpa.dropout_p.without_training_flag")
def sdpa_dropout_p_without_training_flag() -> str:
    """Whether ``dropout_p`` still drops weights inside a module in eval mode, without autograd."""

    class Block(nn.Module):
        def forward(self) -> Tensor:
            # the functional call cannot see self.training: nothing passes it
            return _sdpa_weights(1, 8, dropout_p=0.5)

    block = Block().eval()
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        weights = block()  # [L=1, S=8]
    uniform = torch.full_like(weights, 1 / 8)
    return "ignored" if same(weights, uniform) else "applied"


@probe("sdpa.scale.default")
def sdpa_scale_default() -> str:
    """The scale SDPA uses when ``scale=None``, from one query and two keys with D = 4."""
    return _each_cpu_kernel(_sdpa_scale)


def _sdpa_scale() -> str:
    query = torch.tensor([[[[2.0, 0.0, 0.0, 0.0]]]], dtype=DTYPE)  # [B, H, L=1, D=4]
    key = torch.tensor([[[[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]]], dtype=DTYPE)  # S=2
    value = torch.eye(2, 4, dtype=DTYPE)[None, None]  # one-hot, same width as the keys
    weights = F.scaled_dot_product_attention(query, key, value)[0, 0, :, :2]  # [L=1, S=2]
    raw = torch.tensor([[0.0, 4.0]], dtype=DTYPE)  # q . k for the two keys
    for word, scale in (("1/sqrt(d_k)", 1 / math.sqrt(4)), ("1", 1.0), ("1/d_k", 1 / 4)):
        if same(weights, torch.softmax(raw * scale, dim=-1)):
            return word if word == "1/sqrt(d_k)" else f"unrecognised: scale {word}"
    return "unrecognised: scale matches none of 1/sqrt(d_k), 1, 1/d_k"


@probe("sdpa.attn_mask.bool.cuda")
def sdpa_attn_mask_bool_cuda() -> str:
    """SDPA's Boolean ``attn_mask`` on a CUDA device, float16, default kernel selection."""
    weights = _sdpa_weights(3, 3, device="cuda", dtype=torch.float16, attn_mask=PATTERN.cuda())
    return boolean_polarity(weights, PATTERN)


@probe("sdpa.is_causal.alignment.cuda")
def sdpa_is_causal_alignment_cuda() -> str:
    """``is_causal=True`` with L < S on a CUDA device, float16, default kernel selection."""
    return causal_alignment(_sdpa_weights(2, 4, device="cuda", dtype=torch.float16, is_causal=True))


@probe("softmax.all_neg_inf_row")
def softmax_all_neg_inf_row() -> str:
    """What a plain softmax returns for a row of scores that are all -inf."""
    return empty_row_outcome(F.softmax(torch.full((3,), float("-inf"), dtype=DTYPE), dim=-1))


def _agreed(seen: dict[str, str]) -> str:
    """The common value of ``seen``, or a description naming who observed what."""
    values = set(seen.values())
    if len(values) == 1:
        return values.pop()
    return "differs by code path: " + ", ".join(f"{path}: {value}" for path, value in seen.items())


# --- nn.MultiheadAttention -----------------------------------------------------------------


def _tokens() -> Tensor:
    """Three one-hot tokens [B=1, T=3, E=4], one tensor for query, key and value."""
    return torch.eye(3, 4, dtype=DTYPE)[None]


def _passthrough_mha(*, dropout: float = 0.0) -> nn.MultiheadAttention:
    """MHA with 2 heads of size 2 whose output[..., :3] is the weight matrix.

    ``W_Q = W_K = 0`` makes every score 0; ``W_V = W_O = I`` and one-hot tokens make each output
    row the weighted sum of one-hot rows, i.e. the weight row (both heads see the same mask).
    Two heads, ``batch_first=True`` and the same tensor for query, key and value keep the fast
    path available; whether it runs is decided by :func:`_run_mha`.
    """
    mha = nn.MultiheadAttention(4, 2, dropout=dropout, batch_first=True, dtype=DTYPE)
    zeros, identity = torch.zeros(4, 4, dtype=DTYPE), torch.eye(4, dtype=DTYPE)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([zeros, zeros, identity]))  # [3E, E]: Q, K, V
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(identity)
        mha.out_proj.bias.zero_()
    return mha


def _run_mha(mha: nn.MultiheadAttention, tokens: Tensor, path: MhaPath, **kwargs: Any) -> Tensor:
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


def _mha_weights(path: MhaPath, **kwargs: Any) -> Tensor:
    """Weights [L=3, S=3] of the pass-through MHA along ``path`` with the given masks."""
    return _run_mha(_passthrough_mha(), _tokens(), path, **kwargs)[0, :, :3]


@probe("mha.attn_mask.bool")
def mha_attn_mask_bool() -> str:
    """What True means in MHA's Boolean ``attn_mask``, on each of its three code paths."""
    return _agreed(
        {
            path: boolean_polarity(_mha_weights(path, attn_mask=PATTERN), PATTERN)
            for path in MHA_PATHS
        }
    )


@probe("mha.attn_mask.float")
def mha_attn_mask_float() -> str:
    """How MHA reads a floating ``attn_mask`` (the fast path does not take float masks)."""
    mask = ADDITIVE_ROW.expand(3, 3)  # [L, S]
    return _agreed(
        {
            path: additive_reading(_mha_weights(path, attn_mask=mask), mask)
            for path in ("need_weights_true", "need_weights_false")
        }
    )


@probe("mha.key_padding_mask.bool")
def mha_key_padding_mask_bool() -> str:
    """What True means in MHA's Boolean ``key_padding_mask`` [B, S], on each code path."""
    # [B=1, S=3], True on key 1: its convention is what the probe finds out
    key_padding_mask = torch.tensor([[False, True, False]])
    pattern = key_padding_mask.expand(3, 3)  # the same keys for every query
    return _agreed(
        {
            path: boolean_polarity(_mha_weights(path, key_padding_mask=key_padding_mask), pattern)
            for path in MHA_PATHS
        }
    )


@probe("mha.key_padding_mask.float")
def mha_key_padding_mask_float() -> str:
    """How MHA reads a floating ``key_padding_mask`` [0, ln 3, -inf]."""
    return _agreed(
        {
            path: additive_reading(
                _mha_weights(path, key_padding_mask=ADDITIVE_ROW), ADDITIVE_ROW.expand(3, 3)
            )
            for path in ("need_weights_true", "need_weights_false")
        }
    )


def _is_causal_error(path: MhaPath) -> str:
    outcome, error = call_outcome(lambda: _mha_weights(path, is_causal=True))
    if outcome == "error" and "is_causal" not in str(error):
        return f"unrecognised: {type(error).__name__}: {error}"
    return outcome


@probe("mha.is_causal.without_attn_mask")
def mha_is_causal_without_attn_mask() -> str:
    """Whether ``is_causal=True`` without an ``attn_mask`` is accepted on the slow paths."""
    return _agreed(
        {path: _is_causal_error(path) for path in ("need_weights_true", "need_weights_false")}
    )


@probe("mha.is_causal.without_attn_mask.fast_path")
def mha_is_causal_without_attn_mask_fast_path() -> str:
    """What ``is_causal=True`` without an ``attn_mask`` does on the fast path."""
    causal = _mha_weights("fast_path", is_causal=True)
    plain = _mha_weights("fast_path")
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
    weights = _mha_weights("need_weights_false", attn_mask=nothing_forbidden, is_causal=True)
    if causal_alignment(weights) == "upper_left":
        return "ignored"
    if same(weights, torch.full_like(weights, 1 / 3)):
        return "applied"
    return f"unrecognised: weights {describe(weights)}"


@probe("mha.is_causal.need_weights_true")
def mha_is_causal_need_weights_true() -> str:
    """Whether ``is_causal=True`` does anything beyond ``attn_mask`` with ``need_weights=True``."""
    nothing_forbidden = torch.zeros(3, 3, dtype=torch.bool)
    weights = _mha_weights("need_weights_true", attn_mask=nothing_forbidden, is_causal=True)
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
        lambda: _mha_weights(
            "need_weights_true", key_padding_mask=forbidden_padding, attn_mask=additive
        ),
        mentioning="key_padding_mask",
    )


def _mha_empty_row(path: MhaPath) -> str:
    weights = _mha_weights(path, attn_mask=~EMPTY_ROW_ALLOWED)  # forbidden convention for MHA
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
        output = _run_mha(mha, tokens, path)
        match = [word for word, scale in candidates.items() if same(output, output_for(scale))]
        word = match[0] if match else "none of the candidates"
        seen[path] = word if word == "1/sqrt(d_k)" else f"unrecognised: scale {word}"
    return _agreed(seen)


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
    return _agreed(seen)


# --- nn.Transformer -------------------------------------------------------------------------


@probe("transformer.generate_square_subsequent_mask")
def transformer_generate_square_subsequent_mask() -> str:
    """The convention of the mask ``nn.Transformer.generate_square_subsequent_mask`` builds."""
    return mask_convention(nn.Transformer.generate_square_subsequent_mask(3))


def _encoder_padding_polarity(*, fast_path: bool) -> str:
    """Which key an encoder layer ignores when ``src_key_padding_mask`` marks key 2 True.

    Query 0's output depends on key j exactly when it may attend to it; moving key 1 or key 2
    and watching query 0 tells which key the True entry removed.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(
            4, 2, dim_feedforward=8, dropout=0.0, batch_first=True, dtype=DTYPE
        )
        tokens = torch.randn(1, 3, 4, dtype=DTYPE)  # [B, T, E]
    # [B, S], True on key 2: its convention is what the probe finds out
    key_padding_mask = torch.tensor([[False, False, True]])

    def first_query(x: Tensor) -> Tensor:
        output: Tensor
        with count_calls(torch, "_transformer_encoder_layer_fwd") as fused:
            if fast_path:
                layer.eval()
                with torch.no_grad():
                    output = layer(x, src_key_padding_mask=key_padding_mask)
            else:
                layer.train()
                output = layer(x, src_key_padding_mask=key_padding_mask)
        if fused.calls != int(fast_path):
            raise ProbePathError(f"encoder layer fast path ran {fused.calls} time(s)")
        return output.detach()[0, 0]  # [E]

    base = first_query(tokens)
    moved = {}
    for key in (1, 2):
        shifted = tokens.clone()
        shifted[0, key] += 1.0
        moved[key] = not same(first_query(shifted), base)
    if moved == {1: True, 2: False}:
        return "forbidden"
    if moved == {1: False, 2: True}:
        return "allowed"
    return f"unrecognised: query 0 depends on key 1: {moved[1]}, on key 2: {moved[2]}"


@probe("transformer_encoder_layer.src_key_padding_mask.bool")
def transformer_encoder_layer_src_key_padding_mask_bool() -> str:
    """What True means in ``TransformerEncoderLayer``'s Boolean ``src_key_padding_mask``."""
    return _encoder_padding_polarity(fast_path=False)


@probe("transformer_encoder_layer.src_key_padding_mask.bool.fast_path")
def transformer_encoder_layer_src_key_padding_mask_bool_fast_path() -> str:
    """The same, on the encoder layer's fused inference path (eval, no autograd)."""
    return _encoder_padding_polarity(fast_path=True)


# --- torch.nn.attention.bias ----------------------------------------------------------------


@probe("bias.causal_lower_right.alignment")
def bias_causal_lower_right_alignment() -> str:
    """Where ``causal_lower_right(L, S)`` puts the triangle, passed to SDPA as ``attn_mask``."""
    return causal_alignment(_sdpa_weights(2, 4, attn_mask=attention_bias.causal_lower_right(2, 4)))


@probe("bias.causal_upper_left.alignment")
def bias_causal_upper_left_alignment() -> str:
    """Where ``causal_upper_left(L, S)`` puts the triangle."""
    return causal_alignment(_sdpa_weights(2, 4, attn_mask=attention_bias.causal_upper_left(2, 4)))


@probe("bias.causal_lower_right.fully_masked_row")
def bias_causal_lower_right_fully_masked_row() -> str:
    """What ``causal_lower_right(4, 2)`` gives queries 0 and 1, which have no key."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # its constructor warns about NaN
        bias = attention_bias.causal_lower_right(4, 2)
    weights = _sdpa_weights(4, 2, attn_mask=bias)  # [L=4, S=2]
    return _agreed({f"query {row}": empty_row_outcome(weights[row]) for row in (0, 1)})


# --- flex_attention -------------------------------------------------------------------------


def _flex_weights(allowed: Tensor) -> Tensor:
    """Weights [L, S] of ``flex_attention`` with ``mask_mod`` = ``allowed[q_idx, kv_idx]``."""
    length, source = allowed.shape

    def mask_mod(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return allowed[q_idx, kv_idx]

    block_mask = flex.create_block_mask(mask_mod, 1, 1, length, source, device="cpu")
    query = torch.zeros(1, 1, length, 8, dtype=DTYPE)  # [B, H, L, D]
    key = torch.zeros(1, 1, source, 8, dtype=DTYPE)
    value = torch.eye(source, 8, dtype=DTYPE)[None, None]
    with warnings.catch_warnings():
        # without torch.compile it runs an unfused version and says so: expected on CPU
        warnings.simplefilter("ignore", UserWarning)
        output = flex.flex_attention(query, key, value, block_mask=block_mask)
    if not isinstance(output, Tensor):
        raise TypeError(f"flex_attention returned {type(output).__name__}, expected a Tensor")
    return output[0, 0, :, :source]  # [L, S]


@probe("flex_attention.mask_mod")
def flex_attention_mask_mod() -> str:
    """What a ``mask_mod`` returning True means in ``flex_attention``."""
    return boolean_polarity(_flex_weights(PATTERN), PATTERN)


@probe("flex_attention.fully_masked_row")
def flex_attention_fully_masked_row() -> str:
    """Output of a query for which ``mask_mod`` returns False for every key."""
    return empty_row_outcome(_flex_weights(EMPTY_ROW_ALLOWED)[1])
