"""Self_Attn multiplies the values by attention.permute(0, 2, 1), so each output position (query) sums over the keys with the weights normalised over those keys, as the maintainer fixed.

Report: https://github.com/heykeetae/Self-Attention-GAN/issues/11
Class: softmax_axis
"""

import torch
from torch import nn


class Self_Attn(nn.Module):
    """Self attention Layer"""

    def __init__(self, in_dim, activation):
        super(Self_Attn, self).__init__()
        self.chanel_in = in_dim
        self.activation = activation
        self.query_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim // 8, kernel_size=1)
        self.key_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim // 8, kernel_size=1)
        self.value_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim, kernel_size=1)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        m_batchsize, C, width, height = x.size()
        proj_query = self.query_conv(x).view(m_batchsize, -1, width * height).permute(0, 2, 1)  # B X N X C'
        proj_key = self.key_conv(x).view(m_batchsize, -1, width * height)  # B X C' X N
        energy = torch.bmm(proj_query, proj_key)  # B X N(query) X N(key)
        attention = self.softmax(energy)  # B X N X N, normalised over the keys
        proj_value = self.value_conv(x).view(m_batchsize, -1, width * height)  # B X C X N
        out = torch.bmm(proj_value, attention.permute(0, 2, 1))
        out = out.view(m_batchsize, C, width, height)
        out = self.gamma * out + x
        return out, attention


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = Self_Attn(16, "relu")
    with torch.no_grad():
        layer.gamma.fill_(1.0)  # a trained gamma; it starts at 0
    x = torch.randn(2, 16, 3, 3)
    out, _ = layer(x)
    return out
