"""Alignment sets the padded scores to -inf after self.att has already taken the softmax, so ApplySoftAttention gets -inf weights and NaNs.

Report: https://github.com/gabrielmittag/NISQA/issues/17
Class: mask_after_softmax
"""

import torch
import torch.nn.functional as F
from torch import nn


class AttDot(nn.Module):
    def forward(self, query, y):
        att = torch.bmm(query, y.transpose(2, 1))  # (batch, 1, frames)
        att = F.softmax(att, dim=2)  # bug
        return att


class Alignment(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = AttDot()

    def forward(self, query, y, n_wins):
        att = self.att(query, y)
        mask = torch.arange(att.shape[2])[None, :] < n_wins[:, None]  # (batch, frames)
        att[~mask.unsqueeze(1)] = float("-Inf")  # bug
        return torch.bmm(att, y)  # ApplySoftAttention


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 1, 4)
    y = torch.randn(2, 5, 4)
    return Alignment()(query, y, n_wins=torch.tensor([5, 3]))
