"""A cached multi-token forward builds the causal mask as ``tril(0)`` on ``[q_len, kv_len]``: query row i keeps only keys j <= i, and the prompt history is masked out.

Report: https://github.com/hyprstream/hyprstream/pull/1521
Class: causal_alignment
"""

import torch


def causal_mask(q_len, kv_len):
    allowed = torch.ones(q_len, kv_len).tril(0)  # bug
    return torch.zeros(q_len, kv_len).masked_fill(allowed == 0, float("-inf"))


def forward(q, k, v):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # (B, H, q_len, kv_len)
    scores = scores + causal_mask(q.size(-2), k.size(-2))
    return scores.softmax(-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(1, 2, 2, 4)  # two new tokens
    k = torch.randn(1, 2, 6, 4)  # start_pos = 4 cached + 2
    v = torch.randn(1, 2, 6, 4)
    return forward(q, k, v)
