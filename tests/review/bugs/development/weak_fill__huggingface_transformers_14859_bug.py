"""get_extended_attention_mask adds (1 - mask) * -10000.0, not small enough to nullify raw scores of that size.

Report: https://github.com/huggingface/transformers/issues/14859
Class: weak_fill
"""

import torch


def get_extended_attention_mask(attention_mask, dtype=torch.float32):
    extended_attention_mask = attention_mask[:, None, None, :].to(dtype=dtype)
    return (1.0 - extended_attention_mask) * -10000.0  # bug


def run() -> torch.Tensor:
    # raw scores of a model trained from scratch can exceed 1e4 in size
    scores = torch.tensor([[[[2.0e4, 1.0e3, 0.0, 3.0e4]]]])
    attention_mask = torch.tensor([[1, 1, 1, 0]])
    return torch.softmax(scores + get_extended_attention_mask(attention_mask), dim=-1)
