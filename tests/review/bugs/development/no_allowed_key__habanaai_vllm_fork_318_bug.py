"""Padding samples in a batch get ``seq_len=0``: their attention mask allows no key at all, and the prompt attention divides 0 by 0 (NaN).

Report: https://github.com/HabanaAI/vllm-fork/pull/318
Class: no_allowed_key
"""

import torch


def prompt_attention(query, key, value, seq_lens):
    max_len = key.size(-2)
    valid = torch.arange(max_len)[None, :] < seq_lens[:, None]  # (batch, max_len)
    attn_mask = valid[:, None, None, :]  # keys of each sample
    scores = query @ key.transpose(-2, -1) / query.size(-1) ** 0.5
    scores = scores.masked_fill(~attn_mask, float("-inf"))
    return scores.softmax(-1) @ value


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 3, 2, 4, 8)  # (batch, heads, seq, head_dim)
    real_seq_lens = [4, 2]
    batch_padding = 1
    seq_lens = torch.tensor(real_seq_lens + [0] * batch_padding)  # bug
    return prompt_attention(query, key, value, seq_lens)
