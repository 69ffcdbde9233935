"""The cross-attention mask sets only the columns of padded encoder positions: every decoder query attends to the real source tokens.

Report: https://github.com/ajhalthor/Transformer-Neural-Network/issues/15
Class: padding_axis
"""

import torch

NEG_INFTY = -1e9


def cross_attention_mask(eng_lengths, kn_lengths, max_sequence_length):
    num_sentences = len(eng_lengths)
    mask = torch.full([num_sentences, max_sequence_length, max_sequence_length], False)
    for idx in range(num_sentences):
        eng_chars_to_padding_mask = torch.arange(eng_lengths[idx], max_sequence_length)
        mask[idx, :, eng_chars_to_padding_mask] = True
    return torch.where(mask, NEG_INFTY, 0.0)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    y = torch.randn(2, 5, 8)  # decoder queries
    x = torch.randn(2, 5, 8)  # encoder keys and values
    scaled = y @ x.transpose(-1, -2) / 8**0.5
    attention = torch.softmax(scaled + cross_attention_mask([4, 2], [3, 5], 5), dim=-1)
    return attention @ x
