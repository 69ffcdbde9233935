"""A SAGAN Self_Attention block normalises S = bmm(query, key) with nn.Softmax(dim=-2) and transposes the map twice before the value product.

Correct: S[b, i, j] pairs position i of proj_query with position j of proj_key; the softmax over
dim=-2 normalises over i for each output position j, and the final bmm(proj_value, ...) sums over
that same i, so each output position's weights sum to one over the positions it reads.
"""

import torch
import torch.nn as nn


class Self_Attention(nn.Module):
    def __init__(self, in_dim):
        super(Self_Attention, self).__init__()
        self.query_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim // 8, kernel_size=1)
        self.key_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim // 8, kernel_size=1)
        self.value_conv = nn.Conv2d(in_channels=in_dim, out_channels=in_dim, kernel_size=1)
        self.softmax = nn.Softmax(dim=-2)
        self.gamma = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        X = x
        proj_query = self.query_conv(X).view(X.shape[0], -1, X.shape[2] * X.shape[3])
        proj_query = proj_query.permute(0, 2, 1)
        proj_key = self.key_conv(X).view(X.shape[0], -1, X.shape[2] * X.shape[3])
        S = torch.bmm(proj_query, proj_key)
        attention_map_T = self.softmax(S)
        attention_map = attention_map_T.permute(0, 2, 1)
        proj_value = self.value_conv(X).view(X.shape[0], -1, X.shape[2] * X.shape[3])
        o = torch.bmm(proj_value, attention_map.permute(0, 2, 1))
        o = o.view(X.shape[0], X.shape[1], X.shape[2], X.shape[3])
        out = x + self.gamma * o
        return out, attention_map


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = Self_Attention(16).eval()
    with torch.no_grad():
        layer.gamma.fill_(1.0)
        out, attention_map = layer(torch.randn(2, 16, 3, 3))
    return out
