"""A ``CausalBias`` mask (``causal_lower_right``) is read as the triangle it stands for.

Its own storage is never written: reading it as a float mask read uninitialised memory, and a
correct call was reported (AW205, "NaN or +inf entries") on some runs (executorch#21749's
fix, watch case c23).  Here the storage is filled with NaN on purpose, so the old reading fails
every time; the materialised triangle gives no finding, and an upper-left one on a decode step
still does.
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention.bias import CausalBias, causal_lower_right, causal_upper_left

from attention.review import watch


def _poisoned(bias: CausalBias) -> CausalBias:
    with torch._C.DisableTorchFunctionSubclass():
        torch.Tensor.fill_(bias, float("nan"))  # what uninitialised memory may hold
    return bias


def _codes(mask: CausalBias, length_q: int, length_k: int) -> list[str]:
    torch.manual_seed(0)
    q = torch.randn(1, 2, length_q, 8)
    k, v = torch.randn(2, 1, 2, length_k, 8).unbind(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(warn=False) as seen:
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return sorted({finding.code for finding in seen.findings})


def test_a_lower_right_bias_gives_no_finding_whatever_its_storage_holds() -> None:
    assert _codes(_poisoned(causal_lower_right(4, 10)), 4, 10) == []


def test_an_upper_left_bias_on_a_decode_step_is_still_read() -> None:
    codes = _codes(_poisoned(causal_upper_left(2, 6)), 2, 6)
    assert codes == ["AW213"]  # the top-left corner on L < S, not garbage read as a mask


def test_two_biases_with_the_same_storage_are_not_one_cache_entry() -> None:
    """The watch caches a check per mask; a bias is known by its triangle, not by its bytes."""
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 8)
    k, v = torch.randn(2, 1, 2, 6, 8).unbind(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with watch(warn=False) as seen:
            for bias in (causal_lower_right(2, 6), causal_upper_left(2, 6)):
                F.scaled_dot_product_attention(q, k, v, attn_mask=_poisoned(bias))
    assert sorted({finding.code for finding in seen.findings}) == ["AW213"]
