"""The future is filled with the dtype's minimum (as GPT2Attention does after the -1e4 fixes), far below any score.

Report: https://github.com/huggingface/transformers/issues/15199
Class: weak_fill
"""

import torch
from torch import nn


class GPT2Attention(nn.Module):
    def __init__(self, max_positions):
        super().__init__()
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions), dtype=torch.uint8)).view(
                1, 1, max_positions, max_positions
            ),
        )
        self.scale_attn_weights = True

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        if self.scale_attn_weights:
            attn_weights = attn_weights / (float(value.size(-1)) ** 0.5)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length].bool()
        mask_value = torch.finfo(attn_weights.dtype).min
        mask_value = torch.tensor(mask_value, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = nn.Softmax(dim=-1)(attn_weights)
        return torch.matmul(attn_weights, value), attn_weights


def run() -> torch.Tensor:
    # first rows of the first-layer scores printed in the report
    scores = torch.tensor(
        [
            [-16012.8271, 0.0, 0.0],
            [10511.5508, 5376.9136, 0.0],
            [-24461.1621, -13598.0195, -20461.9980],
        ]
    )
    head_dim = 3
    query = (scores * head_dim**0.5)[None, None]  # (1, 1, 3, 3)
    key = torch.eye(3)[None, None]
    value = torch.arange(9.0).view(1, 1, 3, 3)
    return GPT2Attention(max_positions=3)._attn(query, key, value)[1]
