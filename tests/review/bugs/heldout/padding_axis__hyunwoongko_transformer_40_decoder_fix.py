"""The decoder's padding mask is ``(batch, 1, 1, seq_len)`` and is combined with the no-peak mask: every row keeps its first key.

Report: https://github.com/hyunwoongko/transformer/pull/40
Class: padding_axis
"""

import torch


def make_trg_mask(trg, trg_pad_idx):
    pad_mask = (trg != trg_pad_idx).unsqueeze(1).unsqueeze(2)
    trg_len = trg.shape[1]
    no_peak = torch.tril(torch.ones(trg_len, trg_len)).bool()
    return pad_mask & no_peak


def attention(q, k, v, mask):
    score = (q @ k.transpose(2, 3)) / k.size(-1) ** 0.5
    score = score.masked_fill(mask == 0, float("-inf"))
    return score.softmax(dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    trg = torch.tensor([[5, 7, 0, 0]])  # padding at the end
    q, k, v = torch.randn(3, 1, 2, 4, 8)
    return attention(q, k, v, make_trg_mask(trg, 0))
