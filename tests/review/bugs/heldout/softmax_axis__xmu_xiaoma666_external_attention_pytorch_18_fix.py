"""The softmax runs over dim=0, the k branches to select between, as the author corrected it.

Report: https://github.com/xmu-xiaoma666/External-Attention-pytorch/issues/18
Class: softmax_axis
"""

import torch
from torch import nn


class SKAttention(nn.Module):
    def __init__(self, channel=8, branches=3, reduction=2):
        super().__init__()
        self.d = channel // reduction
        self.fc = nn.Linear(channel, self.d)
        self.fcs = nn.ModuleList([nn.Linear(self.d, channel) for _ in range(branches)])
        self.softmax = nn.Softmax(dim=0)

    def forward(self, conv_outs):
        bs, c, _, _ = conv_outs[0].size()
        feats = torch.stack(conv_outs, 0)  # k,bs,channel,h,w
        U = sum(conv_outs)  # bs,c,h,w
        S = U.mean(-1).mean(-1)  # bs,c
        Z = self.fc(S)  # bs,d
        weights = [fc(Z).view(bs, c, 1, 1) for fc in self.fcs]  # bs,channel
        attention_weughts = torch.stack(weights, 0)  # k,bs,channel,1,1
        attention_weughts = self.softmax(attention_weughts)  # k,bs,channel,1,1
        return (attention_weughts * feats).sum(0)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = SKAttention()
    return attention([torch.randn(2, 8, 3, 3) for _ in range(3)])
