"""Probes for ``nn.Transformer``: its mask helper and masks, and its encoder and decoder layers.

>>> transformer_generate_square_subsequent_mask()
'additive'
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Literal

import torch
from torch import Tensor, nn

from attention.semantics.observe import (
    ProbePathError,
    call_outcome,
    count_calls,
    empty_row_outcome,
    mask_convention,
    same,
)
from attention.semantics.probes.inputs import ADDITIVE_ROW, DTYPE
from attention.semantics.registry import probe

__all__ = [
    "transformer_decoder_layer_memory_key_padding_mask_bool",
    "transformer_decoder_layer_memory_mask_bool",
    "transformer_decoder_layer_tgt_is_causal_with_tgt_mask",
    "transformer_decoder_layer_tgt_is_causal_without_tgt_mask",
    "transformer_decoder_layer_tgt_key_padding_mask_bool",
    "transformer_decoder_layer_tgt_mask_bool",
    "transformer_decoder_layer_tgt_mask_float",
    "transformer_encoder_all_padding_item",
    "transformer_encoder_layer_src_key_padding_mask_bool",
    "transformer_encoder_layer_src_key_padding_mask_bool_fast_path",
    "transformer_encoder_padded_positions",
    "transformer_encoder_padded_positions_fast_path",
    "transformer_generate_square_subsequent_mask",
    "transformer_src_mask_bool",
]


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


def _encoder_outputs(padding: Tensor, *, fast_path: bool) -> Tensor:
    """``nn.TransformerEncoder`` (2 layers, nested tensors enabled) on ``padding`` [B=2, T=3].

    The slow path runs in training mode (dropout 0); the fast path in eval mode without
    autograd, where the encoder packs the batch into a nested tensor (its fused layer runs).
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(
            8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, dtype=DTYPE
        )
        encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)
        tokens = torch.randn(2, 3, 8, dtype=DTYPE)  # [B, T, E]
    output: Tensor
    with count_calls(torch, "_transformer_encoder_layer_fwd") as fused:
        if fast_path:
            encoder.eval()
            with torch.no_grad():
                output = encoder(tokens, src_key_padding_mask=padding)  # [B, T, E]
        else:
            encoder.train()
            output = encoder(tokens, src_key_padding_mask=padding)  # [B, T, E]
    if (fused.calls > 0) != fast_path:
        raise ProbePathError(f"encoder fast path ran {fused.calls} time(s)")
    return output.detach()


@probe("transformer_encoder.all_padding_item")
def transformer_encoder_all_padding_item() -> str:
    """The slow-path output of a batch item whose keys are all padding: NaN or finite."""
    padding = torch.tensor([[False, False, True], [True, True, True]])  # forbidden: item 1
    output = _encoder_outputs(padding, fast_path=False)[1]  # [T, E]
    return "nan" if bool(torch.isnan(output).any()) else "finite"


def _padded_positions(*, fast_path: bool) -> str:
    padding = torch.tensor([[False, False, True], [False, True, True]])  # forbidden convention
    output = _encoder_outputs(padding, fast_path=fast_path)  # [B, T, E]
    if output.shape[:2] != padding.shape:
        return "truncated"  # the trailing all-padding position was dropped from the output
    padded = output[padding]  # [positions, E]
    if bool((padded == 0).all()):
        return "zeros"
    if bool(torch.isfinite(padded).all()) and bool((padded != 0).any(dim=-1).all()):
        return "computed"
    return f"unrecognised: padded positions {empty_row_outcome(padded.flatten())}"


@probe("transformer_encoder.padded_positions")
def transformer_encoder_padded_positions() -> str:
    """What the slow path returns at padded positions."""
    return _padded_positions(fast_path=False)


@probe("transformer_encoder.padded_positions.fast_path")
def transformer_encoder_padded_positions_fast_path() -> str:
    """What the fast path (nested tensors) returns at padded positions."""
    return _padded_positions(fast_path=True)


# -- nn.TransformerDecoderLayer and nn.Transformer: the masks of the decoder ---------------------

DecoderInput = Literal["tgt", "memory", "src"]
"""Which sequence a dependency probe moves: the decoder's own tokens, the encoder's output it
attends to, or (for ``nn.Transformer``) the source sequence."""

KEY_2 = torch.tensor([[False, False, True]] * 3)
"""[L=3, S=3]: True on key 2 for every query; its convention is what a probe finds out."""

KEY_2_PADDING = torch.tensor([[False, False, True]])
"""[B=1, S=3]: True on key 2, a key padding mask whose convention a probe finds out."""


def _decoder_layer() -> nn.TransformerDecoderLayer:
    """A seeded decoder layer (one head, no dropout, batch_first) in training mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return nn.TransformerDecoderLayer(
            4, 1, dim_feedforward=8, dropout=0.0, batch_first=True, dtype=DTYPE
        )


def _inputs() -> dict[DecoderInput, Tensor]:
    """Seeded token sequences [B=1, T=3, E=4] for ``tgt``, ``memory`` and ``src``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        return {name: torch.randn(1, 3, 4, dtype=DTYPE) for name in ("tgt", "memory", "src")}


def _dependence(call: Callable[[dict[DecoderInput, Tensor]], Tensor], moving: DecoderInput) -> str:
    """Whether query 0's output depends on tokens 1 and 2 of ``moving``: ``"key 1: …, key 2: …"``.

    Query 0's output changes with token j of the attended sequence exactly when it may attend to
    it.  Every mask the probes pass marks key 2 (True, or -inf in an additive row whose key 1 holds
    ln 3): depending on key 1 only is the *forbidden* reading of a Boolean mask and the *additive*
    reading of a float one; ``_reading`` names it.
    """
    inputs = _inputs()
    base = call(inputs).detach()[0, 0]  # [E]
    moved = {}
    for key in (1, 2):
        shifted = dict(inputs)
        shifted[moving] = inputs[moving].clone()
        shifted[moving][0, key] += 1.0
        moved[key] = not same(call(shifted).detach()[0, 0], base)
    return f"key 1: {moved[1]}, key 2: {moved[2]}"


def _reading(dependence: str, *, floating: bool = False) -> str:
    """The word for a dependence pattern: key 1 only is forbidden (Boolean) or additive (float)."""
    if dependence == "key 1: True, key 2: False":
        return "additive" if floating else "forbidden"
    if dependence == "key 1: False, key 2: True" and not floating:
        return "allowed"
    return f"unrecognised: query 0 depends on {dependence}"


def _decoder(**masks: Any) -> Callable[[dict[DecoderInput, Tensor]], Tensor]:
    """A call of one seeded decoder layer on ``tgt`` and ``memory`` with ``masks``."""
    layer = _decoder_layer()

    def call(inputs: dict[DecoderInput, Tensor]) -> Tensor:
        output: Tensor = layer(inputs["tgt"], inputs["memory"], **masks)
        return output

    return call


@probe("transformer_decoder_layer.tgt_mask.bool")
def transformer_decoder_layer_tgt_mask_bool() -> str:
    """What True means in ``TransformerDecoderLayer``'s Boolean ``tgt_mask`` [L, L]."""
    return _reading(_dependence(_decoder(tgt_mask=KEY_2), "tgt"))


@probe("transformer_decoder_layer.tgt_mask.float")
def transformer_decoder_layer_tgt_mask_float() -> str:
    """How ``TransformerDecoderLayer`` reads a floating ``tgt_mask`` [0, ln 3, -inf] per row."""
    mask = ADDITIVE_ROW.expand(3, 3)  # [L, L]
    return _reading(_dependence(_decoder(tgt_mask=mask), "tgt"), floating=True)


@probe("transformer_decoder_layer.memory_mask.bool")
def transformer_decoder_layer_memory_mask_bool() -> str:
    """What True means in ``TransformerDecoderLayer``'s Boolean ``memory_mask`` [L, S]."""
    return _reading(_dependence(_decoder(memory_mask=KEY_2), "memory"))


@probe("transformer_decoder_layer.tgt_key_padding_mask.bool")
def transformer_decoder_layer_tgt_key_padding_mask_bool() -> str:
    """What True means in ``TransformerDecoderLayer``'s Boolean ``tgt_key_padding_mask`` [B, L]."""
    return _reading(_dependence(_decoder(tgt_key_padding_mask=KEY_2_PADDING), "tgt"))


@probe("transformer_decoder_layer.memory_key_padding_mask.bool")
def transformer_decoder_layer_memory_key_padding_mask_bool() -> str:
    """What True means in ``TransformerDecoderLayer``'s ``memory_key_padding_mask`` [B, S]."""
    return _reading(_dependence(_decoder(memory_key_padding_mask=KEY_2_PADDING), "memory"))


@probe("transformer_decoder_layer.tgt_is_causal.without_tgt_mask")
def transformer_decoder_layer_tgt_is_causal_without_tgt_mask() -> str:
    """Whether ``tgt_is_causal=True`` without a ``tgt_mask`` is accepted by the decoder layer."""
    inputs = _inputs()
    outcome, error = call_outcome(lambda: _decoder(tgt_is_causal=True)(inputs))
    if outcome == "error" and "is_causal" not in str(error):
        return f"unrecognised: {type(error).__name__}: {error}"
    return outcome


@probe("transformer_decoder_layer.tgt_is_causal.with_tgt_mask")
def transformer_decoder_layer_tgt_is_causal_with_tgt_mask() -> str:
    """Whether a ``tgt_mask`` that masks nothing is used when ``tgt_is_causal=True``.

    Used, query 0 sees every ``tgt`` token; replaced by a causal triangle, it sees none but its own.
    """
    nothing = torch.zeros(3, 3, dtype=torch.bool)  # forbidden convention: mask nothing
    dependence = _dependence(_decoder(tgt_mask=nothing, tgt_is_causal=True), "tgt")
    if dependence == "key 1: False, key 2: False":
        return "ignored"
    if dependence == "key 1: True, key 2: True":
        return "applied"
    return f"unrecognised: query 0 depends on {dependence}"


@probe("transformer.src_mask.bool")
def transformer_src_mask_bool() -> str:
    """What True means in ``nn.Transformer``'s Boolean ``src_mask`` [S, S] (encoder self-attention).

    The whole model's output depends on every source token through the memory (position 2 of
    the memory carries source token 2 in its residual), so the probe reads the encoder's output,
    the memory, with a forward hook during the ``nn.Transformer`` call.
    """
    with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
        # a release may warn about its nested-tensor fast path, which training mode never takes
        warnings.simplefilter("ignore", UserWarning)
        torch.manual_seed(0)
        model = nn.Transformer(
            4,
            2,
            num_encoder_layers=1,
            num_decoder_layers=1,
            dim_feedforward=8,
            dropout=0.0,
            batch_first=True,
            dtype=DTYPE,
        )
    memories: list[Tensor] = []
    model.encoder.register_forward_hook(lambda module, args, output: memories.append(output))

    def call(inputs: dict[DecoderInput, Tensor]) -> Tensor:
        memories.clear()
        model(inputs["src"], inputs["tgt"], src_mask=KEY_2)
        if len(memories) != 1:
            raise ProbePathError(f"nn.Transformer ran its encoder {len(memories)} time(s)")
        return memories[0]  # [B, S, E]

    return _reading(_dependence(call, "src"))
