"""Per batch item, ``offset[b] = nonpad_kv_seqlen[b] - q_len`` and a query at index i attends key j iff ``j <= i + offset[b]`` (bottom-right).

Report: https://github.com/microsoft/onnxruntime/pull/28958
Class: causal_alignment
"""

import torch


def attention(q, k, v, nonpad_kv_seqlen):
    q_len, kv_len = q.size(-2), k.size(-2)
    offset = nonpad_kv_seqlen - q_len
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
