"""The Transformer VAE builds nn.TransformerEncoderLayer with the default batch_first=False and feeds it (batch, seq, embed) tensors, so self-attention mixes different molecules of the batch.

Report: https://github.com/DaoyuanLi2816/Molecule-Generator/pull/22
Class: batch_first
Decidable: code

The pull request also adds padding masks; the inputs here have no padding, so only the layout
part of the fix matters.
"""

import torch
from torch import nn


class TransformerVAE(nn.Module):
    def __init__(self, vocab_size=12, embed_size=8, nhead=2, num_layers=1, max_len=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.pos_embedding = nn.Parameter(torch.randn(1, max_len, embed_size))
        encoder_layer = nn.TransformerEncoderLayer(  # bug
            embed_size, nhead, dim_feedforward=16, dropout=0.0
        )
        self.encoder = nn.TransformerEncoder(encoder_layer, num_layers, enable_nested_tensor=False)

    def encode(self, x):
        x = self.embedding(x) + self.pos_embedding[:, : x.size(1)]  # (batch, seq, embed)
        return self.encoder(x)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = TransformerVAE().eval()
    tokens = torch.randint(1, 12, (3, 6))
    with torch.no_grad():
        return model.encode(tokens)
