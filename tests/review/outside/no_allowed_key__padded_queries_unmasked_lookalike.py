"""A ChatGLM-style get_masks: causal tril times the key padding mask, then the rows of padded queries are set back to "allowed" before the mask is turned into a boolean (True = masked).

Correct: a padded query row would otherwise have no allowed key; subtracting padding_mask - 1 sets
those rows to 1, so they attend everywhere (their outputs are discarded) and no row is all masked.
Real query rows still see only real, earlier keys.
"""

import math

import torch


def get_masks(input_ids, padding_mask):
    batch_size, seq_length = input_ids.shape
    full_attention_mask = torch.ones(batch_size, seq_length, seq_length)
    full_attention_mask.tril_()
    full_attention_mask = full_attention_mask * padding_mask.unsqueeze(1)
    full_attention_mask -= padding_mask.unsqueeze(-1) - 1
    full_attention_mask = (full_attention_mask < 0.5).bool()
    full_attention_mask.unsqueeze_(1)
    return full_attention_mask


def run() -> torch.Tensor:
    torch.manual_seed(0)
    input_ids = torch.tensor([[0, 0, 5, 6], [3, 4, 5, 6]])
    padding_mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])  # left padding
    mask = get_masks(input_ids, padding_mask)
    q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    scores = scores.masked_fill(mask, float("-inf"))
    return scores.softmax(dim=-1) @ v
