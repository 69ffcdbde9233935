"""_package_tokenized_example marks pad tokens on either side as padding, so a left-padded example's pad positions are masked, as the pull request does.

Report: https://github.com/NVIDIA-NeMo/Automodel/pull/3704
Class: polarity
"""

import math

import torch


def _package_tokenized_example(input_ids, pad_token_id):
    # locate padding on both sides: leading (left padding) and trailing (right padding) pad runs
    start = 0
    while start < len(input_ids) and input_ids[start] == pad_token_id:
        start += 1
    end = len(input_ids)
    while end > start and input_ids[end - 1] == pad_token_id:
        end -= 1
    attention_mask = [0] * start + [1] * (end - start) + [0] * (len(input_ids) - end)
    return {"input_ids": input_ids, "attention_mask": attention_mask}


def causal_attention(hidden, attention_mask):
    T = hidden.size(1)
    keep = torch.ones(T, T, dtype=torch.bool).tril()[None] & attention_mask.bool()[:, None, :]
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1))
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return scores.softmax(dim=-1) @ hidden


def run() -> torch.Tensor:
    torch.manual_seed(0)
    pad_token_id = 0
    left_padded = [0, 0, 11, 12, 13, 14]  # tokenizer.padding_side == "left"
    example = _package_tokenized_example(left_padded, pad_token_id)
    embedding = torch.nn.Embedding(16, 8)
    hidden = embedding(torch.tensor([example["input_ids"]]))
    return causal_attention(hidden, torch.tensor([example["attention_mask"]]))
