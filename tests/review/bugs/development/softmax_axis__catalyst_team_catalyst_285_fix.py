"""The softmax runs over dim=2, the history positions, as the pull request proposes.

Report: https://github.com/catalyst-team/catalyst/pull/285
Class: softmax_axis
"""

import torch
from torch import nn


class TemporalAttentionPooling(nn.Module):
    def __init__(self, features_in, kernel_size=1):
        super().__init__()
        self.attention_pooling = nn.Sequential(
            nn.Conv1d(in_channels=features_in, out_channels=1, kernel_size=kernel_size),
            nn.Softmax(dim=2),
        )

    def forward(self, features):
        # features: (bs, history_len, features_in)
        x = features.transpose(1, 2)  # (bs, features_in, history_len)
        x_a = self.attention_pooling(x)  # (bs, 1, history_len)
        return (x_a * x).sum(dim=-1, keepdim=True)  # (bs, features_in, 1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    pooling = TemporalAttentionPooling(features_in=6)
    return pooling(torch.randn(2, 4, 6))
