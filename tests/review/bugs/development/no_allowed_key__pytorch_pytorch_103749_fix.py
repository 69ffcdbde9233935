"""The naive attention fills the masked scores with torch.finfo(att.dtype).min, as in the report, so the all-False padding row stays finite.

Report: https://github.com/pytorch/pytorch/issues/103749
Class: no_allowed_key
"""

import torch

scale = 0.125

# 5 tokens, 1 padding
seq_length = 5
max_seq_length = 10


def naive_fsdpa_2(q, k, v, mask):
    att = (q @ k.transpose(-2, -1)) * scale
    att = att.masked_fill(~mask, torch.finfo(att.dtype).min)
    att = torch.softmax(att, dim=-1)
    return att @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, seq_length + 1, 8)
    k = torch.randn(1, 2, max_seq_length, 8)
    v = torch.randn(1, 2, max_seq_length, 8)
    causal = torch.ones(seq_length, max_seq_length, dtype=torch.bool).tril()  # regular mask
    padding = torch.zeros(1, max_seq_length, dtype=torch.bool)  # padding mask: no key
    mask = torch.cat([causal, padding])[None, None]
    return naive_fsdpa_2(q, k, v, mask)
