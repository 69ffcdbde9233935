"""BLOOM adds a finfo.min attention mask to the scaled float16 scores; the sum overflows to -inf and is only clamped from one side.

Report: https://github.com/huggingface/transformers/pull/18185
Class: additive_sum_overflow
"""

import torch
from torch import nn


def bloom_attention_probs(attention_scores, attention_mask, layer_number):
    input_dtype = attention_scores.dtype
    attn_weights = (attention_scores * layer_number) + attention_mask  # bug
    return nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(input_dtype)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention_scores = -torch.rand(1, 1, 2, 3).half() * 4 - 10  # scores below -8
    min_value = torch.finfo(torch.float16).min
    attention_mask = torch.tensor([[[[min_value] * 3, [0.0, 0.0, min_value]]]]).half()
    return bloom_attention_probs(attention_scores, attention_mask, layer_number=2)
