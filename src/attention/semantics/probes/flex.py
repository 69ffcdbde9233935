"""Probes for ``torch.nn.attention.flex_attention``: what a ``mask_mod`` returning True means.

>>> flex_attention_mask_mod()
'allowed'
"""

from __future__ import annotations

import warnings

from torch import Tensor
from torch.nn.attention import flex_attention as flex

from attention.semantics.observe import boolean_polarity, empty_row_outcome
from attention.semantics.probes.inputs import (
    EMPTY_ROW_ALLOWED,
    PATTERN,
    read_weights,
    weight_inputs,
)
from attention.semantics.registry import probe

__all__ = ["flex_attention_fully_masked_row", "flex_attention_mask_mod"]


def _flex_weights(allowed: Tensor) -> Tensor:
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
    return boolean_polarity(_flex_weights(PATTERN), PATTERN)


@probe("flex_attention.fully_masked_row")
def flex_attention_fully_masked_row() -> str:
    """Output of a query for which ``mask_mod`` returns False for every key."""
    return empty_row_outcome(_flex_weights(EMPTY_ROW_ALLOWED)[1])
