"""A decoder that builds make_pad_mask (True at padding), flips it with `~` into a keep-mask, and lets the attention fill where mask.eq(0).

Correct: the two inversions cancel as intended: `~` turns the padding mask into a keep-mask
(True = real token), and the attention fills exactly where that keep-mask is False; each row
keeps at least one real key.
"""

import math

import torch


def make_pad_mask(lengths, maxlen):
    seq_range = torch.arange(maxlen)[None, :]
    return seq_range >= lengths[:, None]  # True = padding


class MultiHeadedAttention(torch.nn.Module):
    def forward_attention(self, scores, mask):
        mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
        min_value = torch.finfo(scores.dtype).min
        scores = scores.masked_fill(mask, min_value)
        return torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    lengths = torch.tensor([4, 2])
    memory_mask = (~make_pad_mask(lengths, 4))[:, None, :]  # (batch, 1, time2), True = keep
    scores = torch.randn(2, 2, 3, 4) / math.sqrt(8)
    return MultiHeadedAttention().forward_attention(scores, memory_mask)
