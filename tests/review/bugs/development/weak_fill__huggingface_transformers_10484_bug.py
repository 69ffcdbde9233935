"""T5's decoder adds a -10000 causal mask to the position bias; a learned relative bias larger than that lets the decoder attend to the future.

Report: https://github.com/huggingface/transformers/issues/10484
Class: weak_fill
"""

import torch
import torch.nn.functional as F


def extended_causal_mask(seq_length, dtype=torch.float32):
    causal = torch.tril(torch.ones(seq_length, seq_length))[None, None]  # 1 = may attend
    return (1.0 - causal.to(dtype)) * -10000.0  # bug


def t5_attention_weights(q, k, position_bias, mask):
    scores = torch.matmul(q, k.transpose(3, 2))  # (batch, n_heads, seq_length, key_length)
    position_bias = position_bias + mask
    scores += position_bias
    return F.softmax(scores.float(), dim=-1).type_as(scores)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k = torch.randn(2, 1, 1, 3, 4).unbind(0)
    position_bias = torch.zeros(1, 1, 3, 3)
    position_bias[..., 0, 2] = 2e4  # a learned relative bias of extreme size
    return t5_attention_weights(q, k, position_bias, extended_causal_mask(3))
