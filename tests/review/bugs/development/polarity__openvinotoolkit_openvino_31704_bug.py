"""ScaledDotProductAttentionDecomposition turns the Boolean mask (True = take part) into a bias with Select(LogicalNot(mask), mask, -inf): -inf lands exactly where attending is allowed.

Report: https://github.com/openvinotoolkit/openvino/pull/31704
Class: polarity
"""

import math

import torch


def decompose(query, key, value, mask):
    q_scaled = query * (1 / math.sqrt(query.shape[-1]))
    scaled_atten = q_scaled @ key.transpose(-2, -1)
    minus_inf = torch.tensor(float("-inf"), dtype=scaled_atten.dtype)
    # A boolean mask where a value of True indicates that the element should take part in attention.
    atten_mask = mask.to(scaled_atten.dtype)  # ConvertLike
    inv_mask = torch.logical_not(mask)
    atten_mask = torch.where(inv_mask, atten_mask, minus_inf)  # bug
    scaled_atten = scaled_atten + atten_mask  # bug
    return torch.softmax(scaled_atten, dim=-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    mask = torch.tensor([True, True, True, False]).expand(4, 4)  # the last key is padding
    return decompose(query, key, value, mask)
