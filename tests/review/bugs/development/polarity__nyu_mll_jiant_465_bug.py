"""The BERT attention mask is built as ids == pad, ones on the padding, where BERT wants ones for the real tokens.

Report: https://github.com/nyu-mll/jiant/pull/465
Class: polarity
"""

import torch
import torch.nn.functional as F


def bert_self_attention(hidden, attention_mask):
    # attention_mask: (batch, seq), 1 = attend (the BERT convention)
    extended_attention_mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
    q = k = v = hidden[:, None]  # (batch, 1, seq, dim)
    scores = q @ k.transpose(-1, -2) / hidden.shape[-1] ** 0.5
    probs = F.softmax(scores + extended_attention_mask, dim=-1)
    return (probs @ v)[:, 0]


def embed(ids, hidden, pad_idx=0):
    input_mask = (ids == pad_idx).long()  # bug
    return bert_self_attention(hidden, input_mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    ids = torch.tensor([[5, 7, 9, 0], [3, 4, 0, 0]])
    return embed(ids, torch.randn(2, 4, 8))
