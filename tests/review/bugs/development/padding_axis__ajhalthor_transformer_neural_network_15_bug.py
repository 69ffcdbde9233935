"""The encoder padding mask is set on the rows of padded positions as well as on their columns: those query rows are all -1e9 and their attention is spread evenly over every key, padding included.

Report: https://github.com/ajhalthor/Transformer-Neural-Network/issues/15
Class: padding_axis
"""

import torch

NEG_INFTY = -1e9


def create_masks(eng_lengths, max_sequence_length):
    num_sentences = len(eng_lengths)
    encoder_padding_mask = torch.full(
        [num_sentences, max_sequence_length, max_sequence_length], False
    )
    for idx in range(num_sentences):
        eng_chars_to_padding_mask = torch.arange(eng_lengths[idx], max_sequence_length)
        encoder_padding_mask[idx, :, eng_chars_to_padding_mask] = True
        encoder_padding_mask[idx, eng_chars_to_padding_mask, :] = True  # bug
    return torch.where(encoder_padding_mask, NEG_INFTY, 0.0)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k = torch.randn(2, 2, 5, 8)  # (batch, seq, d)
    scaled = q @ k.transpose(-1, -2) / 8**0.5
    attention = torch.softmax(scaled + create_masks([3, 5], 5), dim=-1)
    return attention
