"""The pull request moves the softmax into score() as F.softmax(...) with no dim on the [B, T, H] energies, which for a 3-D input picks dim=0, the batch, and replaces the softmax over the timesteps by a ReLU.

Report: https://github.com/keon/seq2seq/pull/6
Class: softmax_axis
Decidable: code
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, hidden_size):
        super(Attention, self).__init__()
        self.hidden_size = hidden_size
        self.attn = nn.Linear(self.hidden_size * 2, hidden_size)
        self.v = nn.Parameter(torch.rand(hidden_size))
        stdv = 1.0 / math.sqrt(self.v.size(0))
        self.v.data.uniform_(-stdv, stdv)

    def forward(self, hidden, encoder_outputs):
        timestep = encoder_outputs.size(0)
        h = hidden.repeat(timestep, 1, 1).transpose(0, 1)
        encoder_outputs = encoder_outputs.transpose(0, 1)  # [B*T*H]
        attn_energies = self.score(h, encoder_outputs)
        return F.relu(attn_energies).unsqueeze(1)  # bug

    def score(self, hidden, encoder_outputs):
        # [B*T*2H]->[B*T*H]
        energy = F.softmax(self.attn(torch.cat([hidden, encoder_outputs], 2)))  # bug
        energy = energy.transpose(1, 2)  # [B*H*T]
        v = self.v.repeat(encoder_outputs.size(0), 1).unsqueeze(1)  # [B*1*H]
        energy = torch.bmm(v, energy)  # [B*1*T]
        return energy.squeeze(1)  # [B*T]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(hidden_size=8)
    hidden = torch.randn(3, 8)  # [B, H], the decoder's last hidden state
    encoder_outputs = torch.randn(5, 3, 8)  # [T, B, H]
    with torch.no_grad():
        attn_weights = attention(hidden, encoder_outputs)  # [B, 1, T]
        return attn_weights.bmm(encoder_outputs.transpose(0, 1))  # (B,1,N)
