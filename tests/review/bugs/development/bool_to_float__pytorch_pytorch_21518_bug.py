"""A 0/1 causal mask, torch.tril(torch.ones(...)), is given to nn.MultiheadAttention, whose float attn_mask is added to the scores.

Report: https://github.com/pytorch/pytorch/issues/21518
Class: bool_to_float
"""

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn_mask = torch.tril(torch.ones((8, 8)))  # bug
    inputs = torch.randn((8, 2, 6))
    mha = torch.nn.MultiheadAttention(6, 2)  # hidden_dim=6, head_num=2
    # Q, K, V, attn_mask for causality
    outputs, weights = mha(inputs, inputs, inputs, attn_mask=attn_mask)  # bug
    return weights
