"""The causal offset comes only from ``past_key``; with an external cache (``nonpad_kv_seqlen``, no ``past_key``) it is 0, so the decode chunk's mask is index-anchored top-left.

Report: https://github.com/onnx/onnx/issues/8054
Class: causal_alignment
"""

import torch


def attention(q, k, v, is_causal, past_key=None, nonpad_kv_seqlen=None):
    q_len, kv_len = q.size(-2), k.size(-2)
    bias = torch.zeros(q_len, kv_len)
    if is_causal:
        past_kv_seq_len = past_key.size(-2) if past_key is not None else 0  # bug
        range_row = torch.arange(q_len)[:, None] + past_kv_seq_len
        range_col = torch.arange(kv_len)[None, :]
        bias = bias.masked_fill(range_row < range_col, float("-inf"))  # (q_len, kv_len)
    if nonpad_kv_seqlen is not None:
        bias = bias.masked_fill(torch.arange(kv_len)[None, :] >= nonpad_kv_seqlen, float("-inf"))
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + bias
    return scores.softmax(-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 4)  # two new tokens at the end of the valid cache
    k = torch.randn(1, 2, 8, 4)  # static cache of 8 slots, 6 of them valid
    v = torch.randn(1, 2, 8, 4)
    return attention(q, k, v, is_causal=True, nonpad_kv_seqlen=6)
