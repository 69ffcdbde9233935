"""Probes for ``nn.Transformer``'s mask helper and ``nn.TransformerEncoderLayer``'s padding mask.

>>> transformer_generate_square_subsequent_mask()
'additive'
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention.semantics.observe import (
    ProbePathError,
    count_calls,
    empty_row_outcome,
    mask_convention,
    same,
)
from attention.semantics.probes.inputs import DTYPE
from attention.semantics.registry import probe

__all__ = [
    "transformer_encoder_all_padding_item",
    "transformer_encoder_layer_src_key_padding_mask_bool",
    "transformer_encoder_layer_src_key_padding_mask_bool_fast_path",
    "transformer_encoder_padded_positions",
    "transformer_encoder_padded_positions_fast_path",
    "transformer_generate_square_subsequent_mask",
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
