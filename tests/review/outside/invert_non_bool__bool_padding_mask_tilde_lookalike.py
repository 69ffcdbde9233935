"""A padding mask built by comparison (a bool tensor, True = padded) inverted with `~` to get the valid positions, then used to fill the invalid scores with -inf.

Correct: `~` on a torch.bool tensor is a logical NOT (True <-> False), not Python's integer
bitwise NOT (~1 == -2), so the inverted mask is exactly the valid positions; each row keeps at
least one valid key.
"""

import torch


def masked_attention(scores, padding_mask):
    valid_mask = ~padding_mask
    scores = scores.masked_fill(~valid_mask[:, None, :], float("-inf"))
    return scores.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    lengths = torch.tensor([3, 2])
    padding_mask = torch.arange(4)[None, :] >= lengths[:, None]  # bool, True = padded
    scores = torch.randn(2, 4, 4)
    return masked_attention(scores, padding_mask)
