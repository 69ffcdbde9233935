"""OPT adds a finfo(float16).min padding mask to float16 scores; below it the sum overflows to -inf and a padded row's softmax is NaN.

Report: https://github.com/huggingface/transformers/pull/17437
Class: additive_sum_overflow
"""

import torch
from torch import nn


def opt_attention_probs(query_states, key_states, attention_mask, num_heads):
    bsz_heads, tgt_len, _ = query_states.shape
    bsz, src_len = bsz_heads // num_heads, key_states.shape[1]
    attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))  # (bsz * heads, tgt, src)
    attn_weights = attn_weights.view(bsz, num_heads, tgt_len, src_len) + attention_mask  # bug
    attn_weights = attn_weights.view(bsz * num_heads, tgt_len, src_len)
    return nn.functional.softmax(attn_weights, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(1, 2, 4).half()
    key = (-8 * query[:, :1]).expand(1, 2, 4)  # every score of the pad row far below zero
    min_value = torch.finfo(torch.float16).min
    # [pad_token, token_1] with causal masking: the pad row has no allowed key
    attention_mask = torch.tensor([[[[min_value, min_value], [min_value, 0.0]]]]).half()
    return opt_attention_probs(query, key, attention_mask, num_heads=1)
