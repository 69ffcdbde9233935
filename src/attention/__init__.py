"""Scaled dot-product and multi-head attention with explicit mask conventions.

Every mask argument says its convention in its name: ``allowed`` (Boolean, True = may attend),
``forbidden`` (Boolean, True = masked out) or ``additive`` (float, added to the scores).

>>> import torch, math
>>> import attention
>>> q = torch.tensor([[[1.0]]], dtype=torch.float64)                   # [B=1, L=1, D=1]
>>> k = torch.tensor([[[0.0], [math.log(3.0)]]], dtype=torch.float64)  # [1, S=2, 1]
>>> v = torch.tensor([[[10.0], [20.0]]], dtype=torch.float64)          # [1, 2, Dv=1]
>>> out, weights = attention.scaled_dot_product_attention(q, k, v)
>>> weights, out
(tensor([[[0.2500, 0.7500]]], dtype=torch.float64), tensor([[[17.5000]]], dtype=torch.float64))
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers and readers; at run time they load on first use
    from attention.conventions import (
        additive_to_allowed,
        additive_to_forbidden,
        allowed_to_additive,
        allowed_to_forbidden,
        allowed_to_hf_attention_mask,
        allowed_to_mha_attn_mask,
        allowed_to_mha_key_padding_mask,
        forbidden_to_additive,
        forbidden_to_allowed,
        hf_attention_mask_to_allowed,
        mha_attn_mask_to_allowed,
        mha_key_padding_mask_to_allowed,
    )
    from attention.cost import AttentionCost, attention_cost
    from attention.masks import (
        bidirectional_allowed,
        block_diagonal_allowed,
        causal_allowed,
        intersect_allowed,
        key_padding_allowed,
        prefix_lm_allowed,
        query_padding_allowed,
        sliding_window_allowed,
        source_padding_allowed,
        union_allowed,
    )
    from attention.multihead import MultiHeadAttention, mha_parameter_count
    from attention.scaled_dot_product import attention_scores, scaled_dot_product_attention
    from attention.tiled import tiled_attention

_LAZY = {
    "AttentionCost": "attention.cost",
    "MultiHeadAttention": "attention.multihead",
    "additive_to_allowed": "attention.conventions",
    "additive_to_forbidden": "attention.conventions",
    "allowed_to_additive": "attention.conventions",
    "allowed_to_forbidden": "attention.conventions",
    "allowed_to_hf_attention_mask": "attention.conventions",
    "allowed_to_mha_attn_mask": "attention.conventions",
    "allowed_to_mha_key_padding_mask": "attention.conventions",
    "attention_cost": "attention.cost",
    "attention_scores": "attention.scaled_dot_product",
    "bidirectional_allowed": "attention.masks",
    "block_diagonal_allowed": "attention.masks",
    "causal_allowed": "attention.masks",
    "forbidden_to_additive": "attention.conventions",
    "forbidden_to_allowed": "attention.conventions",
    "hf_attention_mask_to_allowed": "attention.conventions",
    "intersect_allowed": "attention.masks",
    "key_padding_allowed": "attention.masks",
    "mha_attn_mask_to_allowed": "attention.conventions",
    "mha_key_padding_mask_to_allowed": "attention.conventions",
    "mha_parameter_count": "attention.multihead",
    "prefix_lm_allowed": "attention.masks",
    "query_padding_allowed": "attention.masks",
    "scaled_dot_product_attention": "attention.scaled_dot_product",
    "sliding_window_allowed": "attention.masks",
    "source_padding_allowed": "attention.masks",
    "tiled_attention": "attention.tiled",
    "union_allowed": "attention.masks",
}
"""Where each public name lives: a module is imported (with torch) the first time one of its
names is used, so ``python -m attention.review`` and the other tools that need no torch start
without it."""


TORCH_MISSING = (
    "{what} needs torch, which is not installed here: "
    "pip install 'attention-textbook[torch]' (or install torch first, for example the CPU "
    "build: pip install torch --index-url https://download.pytorch.org/whl/cpu). The mask "
    "checker, python -m attention.review, needs no torch."
)
"""What a feature that needs torch says where torch is missing."""


def require_torch(what: str) -> None:
    """Raise :class:`ModuleNotFoundError` naming ``what`` and the install, if torch is missing.

    >>> require_torch("attention.scaled_dot_product_attention")  # torch is installed here
    """
    if importlib.util.find_spec("torch") is None:
        raise ModuleNotFoundError(TORCH_MISSING.format(what=what), name="torch")


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_torch(f"attention.{name}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "AttentionCost",
    "MultiHeadAttention",
    "additive_to_allowed",
    "additive_to_forbidden",
    "allowed_to_additive",
    "allowed_to_forbidden",
    "allowed_to_hf_attention_mask",
    "allowed_to_mha_attn_mask",
    "allowed_to_mha_key_padding_mask",
    "attention_cost",
    "attention_scores",
    "bidirectional_allowed",
    "block_diagonal_allowed",
    "causal_allowed",
    "forbidden_to_additive",
    "forbidden_to_allowed",
    "hf_attention_mask_to_allowed",
    "intersect_allowed",
    "key_padding_allowed",
    "mha_attn_mask_to_allowed",
    "mha_key_padding_mask_to_allowed",
    "mha_parameter_count",
    "prefix_lm_allowed",
    "query_padding_allowed",
    "scaled_dot_product_attention",
    "sliding_window_allowed",
    "source_padding_allowed",
    "tiled_attention",
    "union_allowed",
]
__version__ = "0.1.0"
