"""The bias built from torch.finfo(torch.float32).min stays in float32 and the scores are added to it in float32, so the masked entries stay finite and the left-padded row stays finite.

Report: https://github.com/apple/coremltools/pull/2669
Class: overflow_constant
"""

import torch
from torch import nn


class DecoderAttentionFP16(nn.Module):
    def forward(self, query, key, value, attention_mask):
        expanded = attention_mask[:, None, None, :].to(torch.float32)
        causal = torch.ones(query.shape[-2], key.shape[-2]).tril()
        keep = expanded * causal
        bias = (1.0 - keep) * torch.finfo(torch.float32).min
        scores = torch.einsum("bhqd,bhkd->bhqk", query, key) * query.shape[-1] ** -0.5
        probs = nn.functional.softmax(scores.float() + bias, dim=-1)
        return torch.einsum("bhqk,bhkd->bhqd", probs.half(), value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 1, 4, 8).half().unbind(0)
    attention_mask = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])  # the first sample is left-padded
    return DecoderAttentionFP16()(query, key, value, attention_mask)
