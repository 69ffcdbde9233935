"""The Boolean mask becomes Select(mask, 0, -inf): 0 where attending is allowed, -inf elsewhere, as PyTorch's scaled_dot_product_attention does.

Report: https://github.com/openvinotoolkit/openvino/pull/31704
Class: polarity
"""

import math

import torch


def decompose(query, key, value, mask):
    q_scaled = query * (1 / math.sqrt(query.shape[-1]))
    scaled_atten = q_scaled @ key.transpose(-2, -1)
    minus_inf = torch.tensor(float("-inf"), dtype=scaled_atten.dtype)
    zero_f = torch.tensor(0.0, dtype=scaled_atten.dtype)
    # A boolean mask where a value of True indicates that the element should take part in attention.
    atten_mask = torch.where(mask, zero_f, minus_inf)
    scaled_atten = scaled_atten + atten_mask
    return torch.softmax(scaled_atten, dim=-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    mask = torch.tensor([True, True, True, False]).expand(4, 4)  # the last key is padding
    return decompose(query, key, value, mask)
