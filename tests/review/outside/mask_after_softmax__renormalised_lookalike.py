"""Attention weights masked after the softmax and then renormalised by their row sum.

Correct: multiplying the softmax by a 0/1 mask and dividing by the masked row sum gives exactly
the softmax over the kept positions (the common factor cancels), so the weights sum to one.
"""

import torch
from torch.nn import functional as F


def attention(h, att_feats, att_masks):
    dot = torch.bmm(att_feats, h.unsqueeze(2)).squeeze(2)  # [batch, att_size]
    weight = F.softmax(dot, dim=1)
    weight = weight * att_masks.to(weight.dtype)
    weight = weight / weight.sum(1, keepdim=True)
    return torch.bmm(weight.unsqueeze(1), att_feats).squeeze(1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    h = torch.randn(2, 4)
    att_feats = torch.randn(2, 5, 4)
    att_masks = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    return attention(h, att_feats, att_masks)
