"""Probes for ``torch.nn.attention.flex_attention``: what a ``mask_mod`` returning True means.

>>> flex_attention_mask_mod()
'allowed'
"""

from __future__ import annotations

import warnings
from types import ModuleType

import torch
from torch import Tensor

from attention.semantics.observe import boolean_polarity, call_outcome, empty_row_outcome
from attention.semantics.probes.inputs import (
    EMPTY_ROW_ALLOWED,
    PATTERN,
    read_weights,
    weight_inputs,
)
from attention.semantics.probes.releases import ABSENT, optional_module
from attention.semantics.registry import probe

__all__ = [
    "flex_attention_block_mask_reuse",
    "flex_attention_fully_masked_row",
    "flex_attention_mask_mod",
]


def _flex() -> ModuleType | None:
    """``torch.nn.attention.flex_attention``, or None on a release without it (before 2.5)."""
    return optional_module("torch.nn.attention.flex_attention")


def _flex_weights(flex: ModuleType, allowed: Tensor) -> Tensor:
    """Weights [L, S] of ``flex_attention`` with ``mask_mod`` = ``allowed[q_idx, kv_idx]``."""
    length, source = allowed.shape

    def mask_mod(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        # torch 2.5 also asks about the padded positions of a partial last block (indices past
        # L and S): read the mask at indices clamped into it, and forbid the padding
        inside = (q_idx < length) & (kv_idx < source)
        return allowed[q_idx.clamp(max=length - 1), kv_idx.clamp(max=source - 1)] & inside

    block_mask = flex.create_block_mask(mask_mod, 1, 1, length, source, device="cpu")
    query, key, value = weight_inputs(length, source, layout="BHLD")  # [B, H, ., D]
    with warnings.catch_warnings():
        # without torch.compile it runs an unfused version and says so: expected on CPU
        warnings.simplefilter("ignore", UserWarning)
        output = flex.flex_attention(query, key, value, block_mask=block_mask)
    if not isinstance(output, Tensor):
        raise TypeError(f"flex_attention returned {type(output).__name__}, expected a Tensor")
    return read_weights(output, "BHLD", source)  # [L, S]


@probe("flex_attention.mask_mod")
def flex_attention_mask_mod() -> str:
    """What a ``mask_mod`` returning True means in ``flex_attention``."""
    if (flex := _flex()) is None:
        return ABSENT
    return boolean_polarity(_flex_weights(flex, PATTERN), PATTERN)


@probe("flex_attention.fully_masked_row")
def flex_attention_fully_masked_row() -> str:
    """Output of a query for which ``mask_mod`` returns False for every key."""
    if (flex := _flex()) is None:
        return ABSENT
    return empty_row_outcome(_flex_weights(flex, EMPTY_ROW_ALLOWED)[1])


@probe("flex_attention.block_mask.reuse")
def flex_attention_block_mask_reuse() -> str:
    """A ``BlockMask`` made for 256 queries and keys, reused for 128 (a shorter batch)."""
    if (flex := _flex()) is None:
        return ABSENT

    def causal(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return q_idx >= kv_idx

    block_mask = flex.create_block_mask(causal, 1, 1, 256, 256, device="cpu")
    query = torch.zeros(1, 1, 128, 16)  # [B, H, L=128, D]

    def reuse() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return flex.flex_attention(query, query, query, block_mask=block_mask)

    return call_outcome(reuse)[0]
