"""The causal mask is given in the additive form Gemma's code expects, 0 allowed and -2.3819763e38 above the diagonal.

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
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + mask
    return torch.softmax(scores, dim=-1) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    s_x, sliding_window_size = 6, 3
    mask = torch.triu(torch.full((s_x, s_x), -2.3819763e38), diagonal=1)
    mask = sliding_window_mask(mask, sliding_window_size)
    q, k, v = torch.randn(3, 1, s_x, 4).unbind(0)
    return attention(q, k, v, mask)
