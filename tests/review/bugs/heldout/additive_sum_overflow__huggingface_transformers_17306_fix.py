"""The sum is clamped back to finfo.min after the addition, the remedy that followed this discussion (OPT, #17437), so the row stays finite.

Report: https://github.com/huggingface/transformers/pull/17306
Class: additive_sum_overflow
"""

import torch
from torch import nn


class Attention(nn.Module):
    def forward(self, query, key, value, attention_mask):
        w = torch.matmul(query, key.transpose(-1, -2)) / (value.size(-1) ** 0.5)  # (b, h, q, k)
        w = w + attention_mask
        w = torch.max(w, torch.tensor(torch.finfo(w.dtype).min))
        w = nn.functional.softmax(w, dim=-1)
        return torch.matmul(w, value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, value = torch.randn(2, 1, 1, 2, 4).half().unbind(0)
    key = (-16 * query[..., :1, :]).expand(1, 1, 2, 4)  # scores far below zero
    min_value = torch.finfo(torch.float16).min
    # [pad_token, token_1], causal: attention mask [[0, 0], [0, 1]] becomes finfo.min where 0
    attention_mask = torch.tensor([[[[min_value, min_value], [min_value, 0.0]]]]).half()
    return Attention()(query, key, value, attention_mask)
