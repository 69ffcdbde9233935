"""The weights are flattened from dim 3, a softmax per head over its h * w positions, as the maintainers fixed it.

Report: https://github.com/facebookresearch/detr/issues/247
Class: softmax_axis
"""

import torch
import torch.nn.functional as F
from torch import nn


class MHAttentionMap(nn.Module):
    """This is a 2D attention module, which only returns the attention softmax (no multiplication by value)"""

    def __init__(self, query_dim, hidden_dim, num_heads, bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.q_linear = nn.Linear(query_dim, hidden_dim, bias=bias)
        self.k_linear = nn.Linear(query_dim, hidden_dim, bias=bias)
        self.normalize_fact = float(hidden_dim / self.num_heads) ** -0.5

    def forward(self, q, k, mask=None):
        q = self.q_linear(q)
        k = F.conv2d(k, self.k_linear.weight.unsqueeze(-1).unsqueeze(-1), self.k_linear.bias)
        qh = q.view(q.shape[0], q.shape[1], self.num_heads, self.hidden_dim // self.num_heads)
        kh = k.view(
            k.shape[0], self.num_heads, self.hidden_dim // self.num_heads, k.shape[-2], k.shape[-1]
        )
        weights = torch.einsum("bqnc,bnchw->bqnhw", qh * self.normalize_fact, kh)
        if mask is not None:
            weights.masked_fill_(mask.unsqueeze(1).unsqueeze(1), float("-inf"))
        return F.softmax(weights.flatten(3), dim=-1).view(weights.size())


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = MHAttentionMap(query_dim=8, hidden_dim=8, num_heads=2)
    return attention(torch.randn(1, 3, 8), torch.randn(1, 8, 2, 3))
