"""A graph attention that keeps the neighbour logits with torch.mul(..., mask) and subtracts 9e15 * (1 - mask) before the softmax, all in float32.

Correct: 9e15 is far inside float32's range (about 3.4e38), so the masked logits are a finite
-9e15 and get weight 0; every agent has at least itself as a neighbour, and nothing is cast to
float16.
"""

import torch
import torch.nn.functional as F


def neighbour_attention(q, k, mask):
    return F.softmax(torch.mul(torch.bmm(q, k), mask) - 9e15 * (1 - mask), dim=2)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q = torch.randn(2, 3, 4)
    k = torch.randn(2, 4, 3)
    mask = torch.tensor([[[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]]).expand(2, -1, -1)
    return neighbour_attention(q, k, mask)
