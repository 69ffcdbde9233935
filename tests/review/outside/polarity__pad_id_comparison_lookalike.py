"""A RoBERTa-style attention mask computed as input_ids.ne(tokenizer.pad_token_id) after the ids were padded with that same pad id, then turned into an additive (1 - mask) * finfo.min bias.

Correct: the ids are padded and compared with the same pad id, which no real token uses, so the mask
is 1 exactly at the real tokens and 0 at the padding, whatever the tokenizer's pad id is.
"""

import math

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    pad_token_id = 1  # RoBERTa's <pad>
    sequences = [torch.tensor([0, 7, 9, 2]), torch.tensor([0, 5, 2])]
    input_ids = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True, padding_value=pad_token_id)
    attention_mask = input_ids.ne(pad_token_id).long()
    hidden = torch.nn.Embedding(16, 8)(input_ids)
    bias = (1.0 - attention_mask[:, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1)) + bias
    return scores.softmax(dim=-1) @ hidden
