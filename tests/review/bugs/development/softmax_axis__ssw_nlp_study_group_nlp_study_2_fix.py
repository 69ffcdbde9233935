"""The softmax runs over axis 0, the letter sequence, as the pull request proposes.

Report: https://github.com/ssw-nlp-study-group/nlp_study/pull/2
Class: softmax_axis
"""

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.attn = nn.Linear(hidden_size * 2, hidden_size)
        self.v = nn.Linear(hidden_size, 1, bias=False)

    def forward(self, hidden, encoder_outputs):
        # hidden: (batch, hidden); encoder_outputs: (seq_len, batch, hidden)
        seq_len = encoder_outputs.size(0)
        hidden = hidden.unsqueeze(0).repeat(seq_len, 1, 1)  # (seq_len, batch, hidden)
        energy = torch.tanh(self.attn(torch.cat((hidden, encoder_outputs), dim=2)))
        scores = self.v(energy).squeeze(2)  # (seq_len, batch)
        weights = F.softmax(scores, dim=0)
        return (weights.unsqueeze(2) * encoder_outputs).sum(0)  # (batch, hidden)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(hidden_size=4)
    return attention(torch.randn(3, 4), torch.randn(5, 3, 4))
