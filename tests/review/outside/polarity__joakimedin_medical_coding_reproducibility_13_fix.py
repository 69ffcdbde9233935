"""The attention_mask is padded with 0, not with tokenizer.pad_token_id, so padded positions stay masked, as the report proposes.

Report: https://github.com/JoakimEdin/medical-coding-reproducibility/issues/13
Class: polarity
"""

import math
from typing import Optional, Sequence

import torch


class RobertaLikeTokenizer:
    pad_token_id = 1  # RoBERTa's <pad>


class HuggingFaceTokenizer:
    def __init__(self):
        self.tokenizer = RobertaLikeTokenizer()

    def seq2batch(
        self, sequence: Sequence[torch.Tensor], chunk_size: int = 0, padding_value: Optional[int] = None
    ) -> torch.Tensor:
        if padding_value is None:
            padding_value = self.tokenizer.pad_token_id
        if chunk_size == 0:
            return torch.nn.utils.rnn.pad_sequence(sequence, batch_first=True, padding_value=padding_value)
        sequence = list(sequence)
        batch_size = len(sequence)
        max_length = max([len(x) for x in sequence])
        if max_length % chunk_size != 0:
            max_length = max_length + (chunk_size - max_length % chunk_size)
        sequence[0] = torch.nn.functional.pad(sequence[0], (0, max_length - len(sequence[0])), value=padding_value)
        return (
            torch.nn.utils.rnn.pad_sequence(sequence, batch_first=True, padding_value=padding_value)
            .contiguous()
            .view((batch_size, -1, chunk_size))
        )


def collate_fn(text_transform, token_ids, attention_mask, chunk_size):
    data = text_transform.seq2batch(token_ids, chunk_size=chunk_size)
    attention_mask = text_transform.seq2batch(attention_mask, chunk_size=chunk_size, padding_value=0)
    return data, attention_mask


def self_attention(hidden, attention_mask):
    # hidden: [B, T, D]; attention_mask: [B, T] with 1 = attend
    extended = (1.0 - attention_mask[:, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
    scores = hidden @ hidden.transpose(-1, -2) / math.sqrt(hidden.size(-1)) + extended
    return scores.softmax(dim=-1) @ hidden


def run() -> torch.Tensor:
    torch.manual_seed(0)
    token_ids = [torch.tensor([0, 7, 9, 2]), torch.tensor([0, 5, 2])]
    attention_mask = [torch.ones(4, dtype=torch.long), torch.ones(3, dtype=torch.long)]
    data, mask = collate_fn(HuggingFaceTokenizer(), token_ids, attention_mask, chunk_size=4)
    data, mask = data.view(-1, 4), mask.view(-1, 4)  # chunks -> rows
    embedding = torch.nn.Embedding(16, 8)
    return self_attention(embedding(data), mask)
