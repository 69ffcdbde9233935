"""The issue's proposed fix sets the padded weights to 0 after AttCosine's softmax: no NaN, but each row's weights no longer sum to 1.

Report: https://github.com/gabrielmittag/NISQA/issues/17
Class: mask_after_softmax
"""

import torch
import torch.nn.functional as F
from torch import nn


class AttCosine(nn.Module):
    def __init__(self, softmax=True):
        super().__init__()
        self.softmax = softmax
        self.pdist = nn.CosineSimilarity(dim=3)

    def forward(self, query, y):
        att = self.pdist(query.unsqueeze(2), y.unsqueeze(1))  # (batch, q_frames, y_frames)
        sim = att.max(2)[0].unsqueeze(1)
        if self.softmax:
            att = F.softmax(att, dim=2)  # bug
        return att, sim


class Alignment(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = AttCosine()

    def _mask_attention(self, att, y, n_wins):
        mask = torch.arange(att.shape[2])[None, :] < n_wins[:, None].to(torch.long)
        mask = mask.unsqueeze(1).expand_as(att)
        att[~mask] = 0  # bug

    def forward(self, query, y, n_wins_y):
        att_score, sim = self.att(query, y)
        self._mask_attention(att_score, y, n_wins_y)
        return torch.bmm(att_score, y)  # ApplySoftAttention


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = torch.randn(2, 3, 4)
    y = torch.randn(2, 5, 4)
    return Alignment()(query, y, n_wins_y=torch.tensor([5, 2]))
