"""_package_tokenized_example finds the padding by stripping trailing pad tokens; on a left-padded example there is no trailing run, so content_length stays the full length and the attention mask marks every pad position as attendable.

Report: https://github.com/NVIDIA-NeMo/Automodel/pull/3704
Class: polarity
Decidable: values

The smallest faithful reproduction of the pull request's description: which positions the mask
keeps depends on the tokenizer's padding side at run time; the model side is one causal eager
attention that combines the causal and padding masks.
"""

import math

import torch


def _package_tokenized_example(input_ids, pad_token_id):
    # locate padding by stripping trailing pad tokens
    content_length = len(input_ids)
    while content_length > 0 and input_ids[content_length - 1] == pad_token_id:  # bug
        content_length -= 1
    attention_mask = [1] * content_length + [0] * (len(input_ids) - content_length)  # bug
    return {"input_ids": input_ids, "attention_mask": attention_mask}


def causal_attention(hidden, attention_mask):
    T = hidden.size(1)
    keep = torch.ones(T, T, dtype=torch.bool).tril()[None] & attention_mask.bool()[:, None, :]
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1))
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)  # bug
    return scores.softmax(dim=-1) @ hidden


def run() -> torch.Tensor:
    torch.manual_seed(0)
    pad_token_id = 0
    left_padded = [0, 0, 11, 12, 13, 14]  # tokenizer.padding_side == "left"
    example = _package_tokenized_example(left_padded, pad_token_id)
    embedding = torch.nn.Embedding(16, 8)
    hidden = embedding(torch.tensor([example["input_ids"]]))
    return causal_attention(hidden, torch.tensor([example["attention_mask"]]))
