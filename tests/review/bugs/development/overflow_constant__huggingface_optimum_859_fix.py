"""The mask value is taken from the value's dtype in forward, as the review asked, so it stays finite.

Report: https://github.com/huggingface/optimum/pull/859
Class: overflow_constant
"""

import torch
from torch import nn


class DecoderAttention(nn.Module):
    def __init__(self, max_positions=8):
        super().__init__()
        self.register_buffer(
            "bias", torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool))
        )
        self._mask_value = torch.finfo(torch.float32).min

    def forward(self, query, key, value, attention_mask):
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[key_length - query_length : key_length, :key_length]
        mask_value = torch.finfo(value.dtype).min
        causal_mask = torch.where(causal_mask, 0, mask_value).to(value.dtype)
        attention_mask = causal_mask + attention_mask
        scores = query @ key.transpose(-1, -2) / query.size(-1) ** 0.5
        return torch.softmax(scores + attention_mask, dim=-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 3, 4).half().unbind(0)
    # left padding: the first query is a pad token, its only causal key is padding too
    padding = torch.tensor([[torch.finfo(torch.float16).min, 0.0, 0.0]]).half()
    key[:, 0] = -64 * query[:, 0]  # the pad token's own score is far below zero
    return DecoderAttention()(query, key, value, padding[:, None, :])
