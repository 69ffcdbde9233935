"""Each batch item's causal frontier is anchored at key 0 (offset 0) although its valid cache length ``nonpad_kv_seqlen[b]`` differs: the query block, which sits at the end, loses its past.

Report: https://github.com/microsoft/onnxruntime/pull/28958
Class: causal_alignment
"""

import torch


def attention(q, k, v, nonpad_kv_seqlen):
    q_len, kv_len = q.size(-2), k.size(-2)
    offset = torch.zeros_like(nonpad_kv_seqlen)  # bug
    i = torch.arange(q_len)[None, :, None]
    j = torch.arange(kv_len)[None, None, :]
    allowed = (j <= i + offset[:, None, None]) & (j < nonpad_kv_seqlen[:, None, None])
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # (B, H, q_len, kv_len)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return scores.softmax(-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(2, 2, 2, 4)
    k = torch.randn(2, 2, 6, 4)  # external static cache
    v = torch.randn(2, 2, 6, 4)
    return attention(q, k, v, nonpad_kv_seqlen=torch.tensor([6, 4]))
