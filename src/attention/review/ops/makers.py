"""Functions that return a mask whose convention the model's config sets (``apis.MASK_MAKERS``).

transformers' ``create_causal_mask`` gives SDPA a Boolean mask (True = may attend) and the eager
implementation a float mask of 0 and the dtype's minimum: the code that takes the result holds
either, and may test which (``if mask.dtype == torch.bool``).  The value read here is the
Boolean one, with the setting under which it is additive instead.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from attention.review import apis
from attention.review.ops.registry import NOT_MINE, Call, Reading, operation
from attention.review.provenance import Mask, Origin

if TYPE_CHECKING:
    from attention.review.interpreter import Interpreter

_NAMES = tuple(
    dict.fromkeys(name.rsplit(".", 1)[-1] for maker in apis.MASK_MAKERS for name in maker.names)
)


def made(ev: Interpreter, c: Call) -> Mask | None:
    """The mask a call of a maker returns, or None where the call is no maker's."""
    func = c.func
    relative = ev.sources.get(func.id) if isinstance(func, ast.Name) else None
    for maker in apis.MASK_MAKERS:
        if maker.reaches(c.qualified, relative):
            reason = f"returned by {maker.names[0].rsplit('.', 1)[-1]}"
            return Mask(
                "mask",
                Origin(c.node, reason),
                meaning=maker.boolean,
                ndim=4,
                additive_when=maker.additive_when,
            )
    return None


@operation(*_NAMES)
def mask_made(ev: Interpreter, c: Call) -> Reading:
    """``create_causal_mask(config=..., ...)``: a Boolean mask, or an additive one."""
    mask = made(ev, c)
    return NOT_MINE if mask is None else mask
