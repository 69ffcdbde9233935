"""The mask is composed with a Boolean torch.where, so every masked cell holds a single finfo.min, as the pull request does.

Report: https://github.com/NVIDIA-NeMo/Automodel/pull/2658
Class: additive_sum_overflow
"""

import torch


def build_causal_padding_mask(attention_mask, seq_len, dtype):
    # attention_mask: (batch, seq_len), 1 = real token
    min_val = torch.finfo(dtype).min
    causal = torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool))  # (S, S), True = may attend
    allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
    return torch.where(allowed, 0.0, min_val).to(dtype)  # (B, 1, S, S)


def run() -> torch.Tensor:
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    return build_causal_padding_mask(attention_mask, 4, torch.bfloat16)
