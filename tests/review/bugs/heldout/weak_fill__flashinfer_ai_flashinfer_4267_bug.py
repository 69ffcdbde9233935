"""The FA2 kernel uses ``-math::inf`` with ``math::inf = 5e4`` as its -inf: the running max starts there, so a row whose logits are all below -5e4 never raises it, every probability underflows and the output is zeros.

Report: https://github.com/flashinfer-ai/flashinfer/issues/4267
Class: weak_fill
"""

import torch

MATH_INF = 5e4  # bug


def prefill_row(s, v, tile=2):
    # online softmax over key tiles, as the kernel computes one query row
    m = torch.tensor(-MATH_INF)  # bug
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
