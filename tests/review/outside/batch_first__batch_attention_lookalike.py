"""A BatchFormer module passes [B, 1, C] features to a batch-second nn.TransformerEncoderLayer.

Correct on purpose: the layer reads [L, N, E], so the B samples form the sequence axis and the
single middle slot is the batch; the module is meant to let the samples of a mini-batch attend to
each other, as the BatchFormer paper describes.
"""

import torch
from torch import nn


class BatchFormer(nn.Module):
    def __init__(self, dim=8, nhead=2):
        super().__init__()
        self.encoder_layers = nn.TransformerEncoderLayer(dim, nhead, dim, 0.0)

    def forward(self, x):
        # x: [B, C] features; attend across the mini-batch
        return self.encoder_layers(x.unsqueeze(1)).squeeze(1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = BatchFormer().eval()
    with torch.no_grad():
        return model(torch.randn(4, 8))
