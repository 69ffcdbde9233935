"""Probes for ``torch.nn.attention.flex_attention``: ``mask_mod`` and ``BlockMask``.

What a ``mask_mod`` returning True means, and what a ``BlockMask`` does with its lengths, its
batch and its heads.

>>> flex_attention_mask_mod()
'allowed'
"""

from __future__ import annotations

import warnings
from types import ModuleType

import torch
from torch import Tensor

from attention.semantics.observe import (
    boolean_polarity,
    call_outcome,
    causal_alignment,
    empty_row_outcome,
    same,
)
from attention.semantics.probes.inputs import (
    EMPTY_ROW_ALLOWED,
    PATTERN,
    read_weights,
    weight_inputs,
)
from attention.semantics.probes.releases import ABSENT, optional_module
from attention.semantics.registry import probe

__all__ = [
    "flex_attention_block_mask_broadcast",
    "flex_attention_block_mask_q_len_below_kv_len",
    "flex_attention_block_mask_reuse",
    "flex_attention_fully_masked_row",
    "flex_attention_mask_mod",
    "flex_attention_mask_mod_partial_block",
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
    return read_weights(_flex_call(flex, block_mask, query, key, value), "BHLD", source)  # [L, S]


def _flex_call(
    flex: ModuleType, block_mask: object, query: Tensor, key: Tensor, value: Tensor
) -> Tensor:
    """``flex_attention(query, key, value, block_mask=block_mask)``, without its CPU warning."""
    with warnings.catch_warnings():
        # without torch.compile it runs an unfused version and says so: expected on CPU
        warnings.simplefilter("ignore", UserWarning)
        output = flex.flex_attention(query, key, value, block_mask=block_mask)
    if not isinstance(output, Tensor):
        raise TypeError(f"flex_attention returned {type(output).__name__}, expected a Tensor")
    return output


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


def _causal(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    return q_idx >= kv_idx


@probe("flex_attention.block_mask.q_len_below_kv_len")
def flex_attention_block_mask_q_len_below_kv_len() -> str:
    """Where ``q_idx >= kv_idx`` puts the triangle of a ``BlockMask`` with Q_LEN=2 < KV_LEN=4."""
    if (flex := _flex()) is None:
        return ABSENT
    block_mask = flex.create_block_mask(_causal, 1, 1, 2, 4, device="cpu")
    query, key, value = weight_inputs(2, 4, layout="BHLD")  # [B, H, ., D=8]
    return causal_alignment(
        read_weights(_flex_call(flex, block_mask, query, key, value), "BHLD", 4)
    )


@probe("flex_attention.block_mask.broadcast")
def flex_attention_block_mask_broadcast() -> str:
    """Whether a ``BlockMask`` made with B=None, H=None masks every batch item and head."""
    if (flex := _flex()) is None:
        return ABSENT
    block_mask = flex.create_block_mask(_causal, None, None, 3, 3, device="cpu")
    query, key, value = (t.expand(2, 2, 3, 8) for t in weight_inputs(3, 3, layout="BHLD"))
    output = _flex_call(flex, block_mask, query, key, value)  # [B=2, H=2, L=3, D]
    causal = torch.ones(3, 3, dtype=torch.float64).tril()
    causal = causal / causal.sum(-1, keepdim=True)  # [L, S]: each query's own and earlier keys
    masked = {
        (b, h): same(read_weights(output[b : b + 1, h : h + 1], "BHLD", 3), causal)
        for b in range(2)
        for h in range(2)
    }
    if all(masked.values()):
        return "applied"
    return "unrecognised: causal in " + ", ".join(f"b{b} h{h}: {m}" for (b, h), m in masked.items())


@probe("flex_attention.mask_mod.partial_block")
def flex_attention_mask_mod_partial_block() -> str:
    """A ``mask_mod`` that reads a [3, 3] tensor at ``q_idx, kv_idx`` without clamping them.

    The default block is 128 by 128; lengths of 3 leave the only block mostly past L and S.
    A release that calls the ``mask_mod`` there too makes it index past the tensor's end.
    """
    if (flex := _flex()) is None:
        return ABSENT

    def mask_mod(batch: Tensor, head: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        return PATTERN[q_idx, kv_idx]

    query, key, value = weight_inputs(3, 3, layout="BHLD")

    weights: list[Tensor] = []

    def attend() -> None:
        block_mask = flex.create_block_mask(mask_mod, 1, 1, 3, 3, device="cpu")
        weights.append(read_weights(_flex_call(flex, block_mask, query, key, value), "BHLD", 3))

    outcome, error = call_outcome(attend)
    if outcome == "error":
        if isinstance(error, IndexError) or "out of bounds" in str(error):
            return outcome
        return f"unrecognised: {type(error).__name__}: {error}"
    polarity = boolean_polarity(weights[0], PATTERN)
    return "ok" if polarity == "allowed" else polarity
