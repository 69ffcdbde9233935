"""``is_causal=True`` is passed with a local-window mask, which is not causal: the encoder takes the hint, ignores the window and attends the whole past.

Report: https://github.com/pytorch/pytorch/issues/96941
Class: is_causal_misuse
"""

import torch


def window_mask(seq, width):
    i = torch.arange(seq)
    allowed = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < width)  # (seq, seq)
    return torch.zeros(seq, seq).masked_fill(~allowed, float("-inf"))


def run() -> torch.Tensor:
    torch.manual_seed(0)
    bs, seq, dim = 2, 5, 4
    layer = torch.nn.TransformerEncoderLayer(d_model=dim, nhead=2, dropout=0.0)
    model = torch.nn.TransformerEncoder(
        encoder_layer=layer, num_layers=1, enable_nested_tensor=False
    )
    return model(torch.randn(seq, bs, dim), mask=window_mask(seq, 2), is_causal=True)  # bug
