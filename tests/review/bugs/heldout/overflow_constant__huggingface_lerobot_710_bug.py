"""eager_attention_forward masks with big_neg = -2.3819763e38 in torch.where; under AMP the float16 scores cannot hold it.

Report: https://github.com/huggingface/lerobot/pull/710
Class: overflow_constant
"""

import torch
from torch import nn


def eager_attention_forward(attention_mask, head_dim, query_states, key_states, value_states):
    # query_states, key_states: (batch, heads, len, head_dim); attention_mask: (batch, len, len)
    att_weights = torch.matmul(query_states, key_states.transpose(2, 3))
    att_weights *= head_dim**-0.5
    big_neg = -2.3819763e38  # See gemma/modules.py
    masked_att_weights = torch.where(attention_mask[:, None, :, :], att_weights, big_neg)  # bug
    probs = nn.functional.softmax(masked_att_weights, dim=-1)
    probs = probs.to(dtype=value_states.dtype)
    return torch.matmul(probs, value_states)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 1, 1, 3, 4).half().unbind(0)
    attention_mask = torch.tensor([[[True, False, False], [True, True, False], [False] * 3]])
    return eager_attention_forward(attention_mask, 4, query, key, value)
