"""nn.Softmax(dim=1) normalises the (batch, seq_len, 1) scores over the encoder steps, as the fix has it.

Report: https://github.com/tsunrise/everybody-compose/pull/53
Class: softmax_axis
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, encode_hidden_dim, decode_hidden_dim):
        super().__init__()
        self.encode_hidden_dim = encode_hidden_dim
        self.decode_hidden_dim = decode_hidden_dim

        self.attn1 = nn.Linear(encode_hidden_dim * 2 + decode_hidden_dim, encode_hidden_dim)
        self.attn1_activation = nn.LeakyReLU()
        self.attn2 = nn.Linear(encode_hidden_dim, 1)
        self.attn2_activation = nn.Softmax(dim=1)

    def forward(self, encode_output, hidden_state):
        batch_size, seq_len, _ = encode_output.shape
        hidden_state = hidden_state.permute(1, 0, 2)
        hidden_state = hidden_state.repeat(1, seq_len, 1)
        concat = torch.concat((hidden_state, encode_output), dim=-1)
        attn = self.attn1(concat)
        attn = self.attn1_activation(attn)
        attn = self.attn2(attn)  # (batch, seq_len, 1)
        attn = self.attn2_activation(attn)
        attn = attn.view(batch_size, 1, seq_len)
        context = torch.bmm(attn, encode_output)
        return context


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = Attention(encode_hidden_dim=4, decode_hidden_dim=6)
    encode_output = torch.randn(2, 5, 8)  # bidirectional: 2 * encode_hidden_dim
    hidden_state = torch.randn(1, 2, 6)  # (num_layers, batch, decode_hidden_dim)
    return attention(encode_output, hidden_state)
