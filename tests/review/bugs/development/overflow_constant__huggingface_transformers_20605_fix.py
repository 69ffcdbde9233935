"""The constant is torch.finfo(bfloat16).min when the model runs in bfloat16, as the pull request clips it, so it stays finite.

Report: https://github.com/huggingface/transformers/pull/20605
Class: overflow_constant
"""

import torch


def get_extended_attention_mask(attention_mask, dtype):
    # the constant is downcast to the model's dtype, as XLA_USE_BF16=1 does
    min_value = torch.tensor(torch.finfo(dtype).min, dtype=dtype)
    extended_attention_mask = attention_mask[:, None, None, :].to(dtype=dtype)
    return (1.0 - extended_attention_mask) * min_value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    scores = torch.randn(2, 1, 3, 3).bfloat16()
    attention_mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    mask = get_extended_attention_mask(attention_mask, torch.bfloat16)
    return torch.softmax(scores + mask, dim=-1)
