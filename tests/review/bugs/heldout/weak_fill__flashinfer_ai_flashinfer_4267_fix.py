"""The fix uses IEEE -inf: the running max starts at -inf, so the row's own largest logit becomes the max and the weights are normalised.

Report: https://github.com/flashinfer-ai/flashinfer/issues/4267
Class: weak_fill
"""

import torch


def prefill_row(s, v, tile=2):
    # online softmax over key tiles, as the kernel computes one query row
    m = torch.tensor(float("-inf"))
    d = torch.tensor(0.0)
    o = torch.zeros(v.shape[-1])
    for start in range(0, s.shape[0], tile):
        s_tile = s[start : start + tile]
        m_new = torch.maximum(m, s_tile.max())
        p = torch.exp(s_tile - m_new)
        d = d * torch.exp(m - m_new) + p.sum()
        o = o * torch.exp(m - m_new) + p @ v[start : start + tile]
        m = m_new
    return o / d if d > 0 else o


def run() -> torch.Tensor:
    s = torch.tensor([-60000.0, -60001.0, -59999.0, -60002.0])  # every logit below -5e4
    v = torch.arange(8.0).view(4, 2)
    return prefill_row(s, v)
