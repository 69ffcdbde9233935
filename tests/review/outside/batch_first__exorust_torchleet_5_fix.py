"""The encoder layer is built with batch_first=True, matching the [batch, seq, embed] inputs.

Report: https://github.com/Exorust/TorchLeet/issues/5
Class: batch_first
"""

import torch
from torch import nn


class TransformerModel(nn.Module):
    def __init__(self, input_dim, embed_dim, num_heads, num_layers, ff_dim, output_dim):
        super().__init__()
        self.embedding = nn.Linear(input_dim, embed_dim)
        encoder_layer = nn.TransformerEncoderLayer(
            d_model=embed_dim,
            nhead=num_heads,
            dim_feedforward=ff_dim,
            dropout=0.0,
            batch_first=True,
        )
        self.transformer_encoder = nn.TransformerEncoder(
            encoder_layer, num_layers=num_layers, enable_nested_tensor=False
        )
        self.output_layer = nn.Linear(embed_dim, output_dim)

    def forward(self, x):
        x = self.embedding(x)  # [batch, seq, embed]
        x = self.transformer_encoder(x)
        x = x.mean(dim=1)
        return self.output_layer(x)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = TransformerModel(
        input_dim=1, embed_dim=8, num_heads=2, num_layers=1, ff_dim=16, output_dim=1
    ).eval()
    X = torch.rand(4, 6, 1)
    with torch.no_grad():
        return model(X)
