"""A binary causal mask (1 = may attend) goes into Gemma's sliding-window code, which expects an additive mask: the window keeps 1s and 0s, so the future is not masked.

Report: https://github.com/google/gemma_pytorch/issues/73
Class: bool_to_float
"""

import torch


def sliding_window_mask(mask, sliding_window_size):
    all_ones = torch.ones_like(mask)
    sliding_mask = torch.triu(all_ones, -1 * sliding_window_size + 1) * torch.tril(
        all_ones, sliding_window_size - 1
    )
    return torch.where(sliding_mask == 1, mask, -2.3819763e38)


def attention(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + mask  # bug
    return torch.softmax(scores, dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    s_x, sliding_window_size = 6, 3
    mask = torch.tril(torch.ones(s_x, s_x))  # bug
    mask = sliding_window_mask(mask, sliding_window_size)
    q, k, v = torch.randn(3, 1, s_x, 4).unbind(0)
    return attention(q, k, v, mask)
