"""The 4-D additive mask sums a causal plane and a padding plane of finfo(bfloat16).min: a key masked by both becomes -inf.

Report: https://github.com/NVIDIA-NeMo/Automodel/pull/2658
Class: additive_sum_overflow
"""

import torch


def build_causal_padding_mask(attention_mask, seq_len, dtype):
    # attention_mask: (batch, seq_len), 1 = real token
    min_val = torch.finfo(dtype).min
    causal = torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool))  # (S, S), True = may attend
    causal_plane = torch.zeros(seq_len, seq_len, dtype=dtype).masked_fill(~causal, min_val)  # bug
    padding_plane = (1.0 - attention_mask[:, None, None, :].to(dtype)) * min_val  # bug
    return causal_plane[None, None] + padding_plane  # (B, 1, S, S)  # bug


def run() -> torch.Tensor:
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    return build_causal_padding_mask(attention_mask, 4, torch.bfloat16)
