"""A dense graph attention that keeps the logits on edges with torch.where(adj > 0, e, zero_vec), where zero_vec is filled with -9e15 despite its name.

Correct: the non-edge logits are replaced by -9e15 (not 0), so after the softmax they get weight
0; every node has a self-loop, so each row keeps an allowed key, and float32 holds -9e15.
"""

import torch
import torch.nn.functional as F


def gat_attention(Wh, a, adj):
    n = Wh.size(0)
    out_features = Wh.size(1)
    Wh1 = torch.matmul(Wh, a[:out_features, :])
    Wh2 = torch.matmul(Wh, a[out_features:, :])
    e = F.leaky_relu(Wh1 + Wh2.T, negative_slope=0.2)
    zero_vec = -9e15 * torch.ones_like(e)
    attention = torch.where(adj > 0, e, zero_vec)
    attention = F.softmax(attention, dim=1)
    return torch.matmul(attention, Wh)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    Wh = torch.randn(4, 8)
    a = torch.randn(16, 1)
    adj = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]])
    return gat_attention(Wh, a, adj)
