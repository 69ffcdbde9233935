"""The attention bias uses off_value = -3E38, which float16 cannot hold: pooling models return NaN in float16.

Report: https://github.com/HabanaAI/vllm-fork/pull/1441
Class: overflow_constant
"""

import torch


def set_attn_bias(seq_lens, seq_len, dtype):
    batch_size = len(seq_lens)
    len_mask = (
        torch.arange(0, seq_len).view(1, seq_len).ge(torch.tensor(seq_lens).view(batch_size, 1))
    )  # (batch, seq_len), True = padding
    attn_mask = torch.triu(torch.ones((seq_len, seq_len), dtype=torch.bool), diagonal=1)
    len_mask_v = len_mask.view(batch_size, 1, seq_len, 1)
    mask = attn_mask.logical_or(len_mask.view(batch_size, 1, 1, seq_len)).logical_or(len_mask_v)
    off_value = -3e38  # small number, avoid nan and overflow
    return torch.where(mask, off_value, 0.0).to(dtype)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 1, 3, 3).half()
    bias = set_attn_bias([3, 2], 3, torch.float16)
    return torch.softmax(scores + bias, dim=-1)
