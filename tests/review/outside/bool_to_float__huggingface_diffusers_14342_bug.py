"""The cuDNN attention forward op passes a boolean attn_mask into the additive attn_bias slot, so kept keys get +1 and masked keys +0 instead of -inf.

Report: https://github.com/huggingface/diffusers/issues/14342
Class: bool_to_float
Decidable: values

The raw ATen cuDNN op needs a GPU; this is the smallest faithful reproduction on the CPU: an op
that adds attn_bias to the scores, as the cuDNN kernel does with the bias it is given.
"""

import math

import torch


def _scaled_dot_product_attention_with_bias(query, key, value, attn_bias):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    scores = scores + attn_bias.to(scores.dtype)
    return scores.softmax(dim=-1) @ value


def _cudnn_attention_forward_op(query, key, value, attn_mask=None):
    out = _scaled_dot_product_attention_with_bias(query, key, value, attn_bias=attn_mask)  # bug
    return out


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attn_mask = torch.tensor([True, True, False, False]).expand(1, 1, 4, 4)  # True = keep
    return _cudnn_attention_forward_op(query, key, value, attn_mask=attn_mask)
