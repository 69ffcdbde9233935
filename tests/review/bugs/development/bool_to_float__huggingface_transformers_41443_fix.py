"""A Boolean mask is first turned into a float mask with -inf where it is False, as the pull request proposes.

Report: https://github.com/huggingface/transformers/pull/41443
Class: bool_to_float
"""

import torch
from torch import nn


def eager_attention_forward(query, key, value, attention_mask, scaling):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling  # (b, h, q, k)
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key.shape[-2]]
        if causal_mask.dtype == torch.bool:
            causal_mask = torch.zeros_like(causal_mask, dtype=attn_weights.dtype).masked_fill(
                ~causal_mask, float("-inf")
            )
        attn_weights = attn_weights + causal_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value)
    return attn_output.transpose(1, 2).contiguous(), attn_weights


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 2, 4, 8).unbind(0)
    attention_mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))[None, None]  # True = may attend
    return eager_attention_forward(query, key, value, attention_mask, scaling=8**-0.5)[1]
