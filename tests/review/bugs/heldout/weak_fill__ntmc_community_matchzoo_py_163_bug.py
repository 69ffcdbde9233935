"""BidirectionalAttention fills the masked similarities with -1e-7, which is practically 0, before the softmax.

Report: https://github.com/NTMC-Community/MatchZoo-py/issues/163
Class: weak_fill
"""

import torch
import torch.nn.functional as F
from torch import nn


class BidirectionalAttention(nn.Module):
    """Computing the soft attention between two sequence."""

    def forward(self, v1, v1_mask, v2, v2_mask):
        # v1: (b, l1, d), v2: (b, l2, d); masks: True = padding
        similarity_matrix = v1.bmm(v2.transpose(2, 1).contiguous())  # (b, l1, l2)
        v2_v1_attn = F.softmax(
            similarity_matrix.masked_fill(v1_mask.unsqueeze(2), -1e-7), dim=1
        )  # bug
        v1_v2_attn = F.softmax(
            similarity_matrix.masked_fill(v2_mask.unsqueeze(1), -1e-7), dim=2
        )  # bug
        attended_v1 = v1_v2_attn.bmm(v2)
        attended_v2 = v2_v1_attn.transpose(1, 2).bmm(v1)
        attended_v1.masked_fill_(v1_mask.unsqueeze(2), 0)
        attended_v2.masked_fill_(v2_mask.unsqueeze(2), 0)
        return attended_v1, attended_v2


def run() -> torch.Tensor:
    torch.manual_seed(0)
    v1, v2 = torch.randn(2, 1, 4, 6).unbind(0)
    v1_mask = torch.tensor([[False, False, True, True]])
    v2_mask = torch.tensor([[False, False, False, True]])
    attended_v1, attended_v2 = BidirectionalAttention()(v1, v1_mask, v2, v2_mask)
    return torch.cat([attended_v1, attended_v2], dim=1)
