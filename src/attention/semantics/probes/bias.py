"""Probes for ``torch.nn.attention.bias``: where its causal variants put the triangle.

Each bias goes to ``F.scaled_dot_product_attention`` as ``attn_mask`` on the shared inputs.

>>> bias_causal_lower_right_alignment()
'lower_right'
"""

from __future__ import annotations

import warnings
from types import ModuleType

from attention.semantics.observe import causal_alignment, empty_row_outcome
from attention.semantics.probes.inputs import agreed
from attention.semantics.probes.releases import ABSENT, optional_module
from attention.semantics.probes.sdpa import sdpa_weights
from attention.semantics.registry import probe

__all__ = [
    "bias_causal_lower_right_alignment",
    "bias_causal_lower_right_fully_masked_row",
    "bias_causal_upper_left_alignment",
]


def _bias() -> ModuleType | None:
    """``torch.nn.attention.bias``, or None on a release without it (before torch 2.3)."""
    return optional_module("torch.nn.attention.bias")


@probe("bias.causal_lower_right.alignment")
def bias_causal_lower_right_alignment() -> str:
    """Where ``causal_lower_right(L, S)`` puts the triangle, passed to SDPA as ``attn_mask``."""
    if (attention_bias := _bias()) is None:
        return ABSENT
    return causal_alignment(sdpa_weights(2, 4, attn_mask=attention_bias.causal_lower_right(2, 4)))


@probe("bias.causal_upper_left.alignment")
def bias_causal_upper_left_alignment() -> str:
    """Where ``causal_upper_left(L, S)`` puts the triangle."""
    if (attention_bias := _bias()) is None:
        return ABSENT
    return causal_alignment(sdpa_weights(2, 4, attn_mask=attention_bias.causal_upper_left(2, 4)))


@probe("bias.causal_lower_right.fully_masked_row")
def bias_causal_lower_right_fully_masked_row() -> str:
    """What ``causal_lower_right(4, 2)`` gives queries 0 and 1, which have no key."""
    if (attention_bias := _bias()) is None:
        return ABSENT
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # its constructor warns about NaN
        bias = attention_bias.causal_lower_right(4, 2)
    weights = sdpa_weights(4, 2, attn_mask=bias)  # [L=4, S=2]
    return agreed({f"query {row}": empty_row_outcome(weights[row]) for row in (0, 1)})
