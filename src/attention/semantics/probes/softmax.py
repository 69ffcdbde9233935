"""Probe for a plain ``torch.softmax`` over a row of scores that are all -inf.

>>> softmax_all_neg_inf_row()
'nan'
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from attention.semantics.observe import empty_row_outcome
from attention.semantics.probes.inputs import DTYPE
from attention.semantics.registry import probe

__all__ = ["softmax_all_neg_inf_row"]


@probe("softmax.all_neg_inf_row")
def softmax_all_neg_inf_row() -> str:
    """What a plain softmax returns for a row of scores that are all -inf."""
    return empty_row_outcome(F.softmax(torch.full((3,), float("-inf"), dtype=DTYPE), dim=-1))
