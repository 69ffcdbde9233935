"""nn.MultiheadAttention built with batch_first=True and given [B, T, E] inputs, with a key_padding_mask that is True at the padded keys.

Correct: the layout matches the module's batch_first, and the boolean key_padding_mask marks the
positions to ignore, which is what nn.MultiheadAttention expects; every row keeps a real key.
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d_model=8, nhead=2):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)

    def forward(self, x, lengths):
        key_padding_mask = torch.arange(x.size(1))[None, :] >= lengths[:, None]  # True = padding
        return self.self_attn(x, x, x, key_padding_mask=key_padding_mask)[0]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    enc = Encoder().eval()
    x = torch.randn(3, 5, 8)  # [B, T, E]
    with torch.no_grad():
        return enc(x, torch.tensor([5, 3, 1]))
