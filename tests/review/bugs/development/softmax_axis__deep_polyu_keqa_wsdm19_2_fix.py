"""The softmax runs over dim=0, the positions, as the maintainer's fix has it.

Report: https://github.com/DEEP-PolyU/KEQA_WSDM19/issues/2
Class: softmax_axis
"""

import torch
import torch.nn.functional as F
from torch import nn


class EmbedAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.attn = nn.Linear(hidden * 2, 1)

    def forward(self, x, outputs):
        # x, outputs: (seq_len * batch_size, hidden)
        attn_weights = F.softmax(self.attn(torch.cat((x, outputs), 1)), dim=0)
        return attn_weights * outputs  # (seq_len * batch_size, hidden)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = EmbedAttention(hidden=4)
    return attention(torch.randn(5, 4), torch.randn(5, 4))
