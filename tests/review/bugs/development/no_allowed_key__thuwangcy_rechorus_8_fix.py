"""Scores are filled with -inf where the mask is 0 and the NaN of a row with no allowed key is set to 0 after the softmax.

Report: https://github.com/THUwangcy/ReChorus/issues/8
Class: no_allowed_key
"""

import torch


def scaled_dot_product_attention(q, k, v, d_k, mask=None):
    scores = torch.matmul(q, k.transpose(-2, -1)) / d_k**0.5
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    scores = (scores - scores.max()).softmax(dim=-1)
    scores = scores.masked_fill(torch.isnan(scores), 0)
    return torch.matmul(scores, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 1, 4, 8)  # (batch, heads, seq, d_k)
    history = torch.tensor([[1, 1, 1, 0], [0, 0, 0, 0]])  # the second user has no history
    mask = history[:, None, None, :]
    return scaled_dot_product_attention(q, k, v, 8, mask)
