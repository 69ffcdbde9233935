"""What the checker knows of the APIs it reads: which argument of which call holds what.

A mask's meaning is decided where it goes: SDPA's ``attn_mask`` reads True as *may attend*
(allowed), ``nn.MultiheadAttention`` and the ``nn.Transformer*`` modules read True as *masked
out* (forbidden) and add a float mask (additive).  Where each mask parameter of an attention API
sits, and what it means, is that API's row in ``apis.py`` (a new API is a row there, not a branch
in the interpreter); the tables here say which convention the package's own converters return,
and which torch calls make or scale a value (those that keep one, retype it or move its axes are
rows in ``ops.py``).

>>> MODULE_APIS["mha"].argument("key_padding_mask").position
3
>>> CONVENTIONS["allowed_to_mha_key_padding_mask"]
('forbidden', True)
"""

from __future__ import annotations

import re

from attention.review import apis

SDPA = apis.SDPA.name
OWN_SDPA = apis.OWN_SDPA.names
NO_DIM = -(2**31)
"""An ``nn.Softmax`` whose ``dim`` is given but is not a literal: nothing to check."""
SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
TANH = ("torch.tanh", "torch.nn.functional.tanh")
MHA_FORWARD = apis.MHA_FORWARD.name
FLEX_MASK_MAKERS = tuple(name.rpartition(".")[2] for name in apis.CREATE_BLOCK_MASK.names)
"""``create_block_mask`` and ``create_mask``: they call a ``mask_mod`` (True = may attend)."""
MODULE_APIS: dict[str, apis.Api] = {api.kind: api for api in apis.MODULE_APIS}
"""Each module kind's row (``apis.py``): the masks its ``forward`` takes (all forbidden /
additive) and its ``is_causal`` hints.  A hint is no switch: without its mask the call raises
(or, on the inference fast path, drops the hint); with its mask and no padding mask beside it,
the mask is dropped and a causal triangle used instead (``nn.MultiheadAttention`` only where
``need_weights=False``, which the ``nn.Transformer*`` layers always pass)."""
MODULES = {api.short: api.kind for api in apis.MODULE_APIS}
"""The class name of each module kind → the kind."""
CONVENTIONS = {
    "allowed_to_forbidden": ("forbidden", False),
    "forbidden_to_allowed": ("allowed", False),
    "allowed_to_mha_attn_mask": ("forbidden", False),
    "allowed_to_mha_key_padding_mask": ("forbidden", True),
    "mha_attn_mask_to_allowed": ("allowed", False),
    "mha_key_padding_mask_to_allowed": ("allowed", False),
    "hf_attention_mask_to_allowed": ("allowed", False),
    "causal_allowed": ("allowed", False),
    "bidirectional_allowed": ("allowed", False),
    "prefix_lm_allowed": ("allowed", False),
    "sliding_window_allowed": ("allowed", False),
    "block_diagonal_allowed": ("allowed", False),
    "key_padding_allowed": ("allowed", False),
    "source_padding_allowed": ("allowed", False),
    "query_padding_allowed": ("allowed", False),
    "intersect_allowed": ("allowed", False),
    "union_allowed": ("allowed", False),
}
ADDITIVE_CONVENTIONS = ("allowed_to_additive", "forbidden_to_additive")
PADDED_ONES = {"torch.nn.functional.unfold": (3, "padding"), "torch.nn.functional.pad": (1, "pad")}
"""Calls that pad their input with zeros (``F.unfold(..., padding=p)``, ``F.pad(x, pad)``), and
where their padding argument sits (position, keyword): of a tensor of ones they make a mask,
1 = a real position (``F.pad``'s ``value`` may pad with another number)."""
CONSTRUCTORS = ("ones", "zeros", "full", "empty", "ones_like", "zeros_like", "full_like")
INTEGER_DTYPES = frozenset(
    (
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "long",
        "int",
        "short",
        "uint16",
        "uint32",
        "uint64",
    )
)
"""``torch.<name>`` of an integer dtype: ``~`` on it flips bits, ``~0`` is -1 (255 for uint8)."""
SCALING_METHODS = ("mul", "mul_", "div", "div_", "multiply", "divide", "mul_scalar")
HEAD_COUNT = re.compile(
    r"(num_heads|num_head|n_heads?|nheads?|heads|num_attention_heads|attention_heads"
    r"|head_count|n_head_channels)"
)
"""Names of a head count (what ``x.repeat(num_heads, 1, 1)`` tiles by)."""
HEAD_NAMES = frozenset(
    (
        "num_heads",
        "num_head",
        "n_heads",
        "n_head",
        "nheads",
        "nhead",
        "heads",
        "head",
        "num_attention_heads",
        "attention_heads",
        "head_count",
        "n_head_channels",
        "head_size",
        "head_dim",
        "dim_head",
        "d_head",
        "d_k",
    )
)
"""Identifiers (names, attributes, parameters) of a head count or a head size: code that names
one splits attention into heads, or makes a head narrower than the model width."""
SCALE_WORDS = ("scale", "scaling", "sqrt", "temperature", "norm_factor")
"""A function that names any of these scales its scores somewhere the pass may not follow."""
PENALTY = -1e3
"""A fill at or below this is a penalty meant to forbid (−inf, finfo.min, −1e9, −1e4)."""
FLOAT16_MAX = 65504.0
BFLOAT16_MAX = 3.3895313892515355e38
"""``torch.finfo(torch.bfloat16).max``: finfo(float32).min does not fit it."""
ATTENTION_WORDS = ("mask", "attn", "attention", "score", "logit", "energy", "sim")
"""A fill of a tensor whose expression names none of these is not shown to be about attention."""
NOT_ZEROING = -10.0
"""A fill at or above this leaves a masked key a weight of at least e^-10 of a zero score."""
