"""An additive padding mask built as (1.0 - mask) * torch.finfo(torch.float32).min is cast to float16 with the rest of the attention, so the sentinel becomes -inf and a left-padded query whose keys are all masked gets NaN.

Report: https://github.com/apple/coremltools/pull/2669
Class: overflow_constant
Decidable: code

The report names both ways the sentinel reaches the fp16 cast: a constant and a tensor built
from it "via add/mul"; this is the multiply form, with the cast written out.
"""

import torch
from torch import nn


class DecoderAttentionFP16(nn.Module):
    def forward(self, query, key, value, attention_mask):
        expanded = attention_mask[:, None, None, :].to(torch.float32)
        causal = torch.ones(query.shape[-2], key.shape[-2]).tril()
        keep = expanded * causal
        bias = (1.0 - keep) * torch.finfo(torch.float32).min
        bias = bias.to(torch.float16)  # bug
        scores = torch.einsum("bhqd,bhkd->bhqk", query, key) * query.shape[-1] ** -0.5
        probs = nn.functional.softmax((scores + bias).float(), dim=-1)  # bug
        return torch.einsum("bhqk,bhkd->bhqd", probs.half(), value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 1, 4, 8).half().unbind(0)
    attention_mask = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])  # the first sample is left-padded
    return DecoderAttentionFP16()(query, key, value, attention_mask)
