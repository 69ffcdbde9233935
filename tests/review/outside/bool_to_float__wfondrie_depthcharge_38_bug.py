"""The peptide decoder turns its boolean causal tgt_mask (True = future) into a float mask, which nn.TransformerDecoder adds as 0/1, so tokens attend to the future.

Report: https://github.com/wfondrie/depthcharge/pull/38
Class: bool_to_float
Decidable: code

The decoder is trimmed to the mask and the decoder call; the float conversion is written as the
pull request describes it.
"""

import torch
from torch import nn


def generate_tgt_mask(sz):
    """Generate a square mask for the sequence."""
    return ~torch.triu(torch.ones(sz, sz, dtype=torch.bool)).transpose(0, 1)


class PeptideDecoder(nn.Module):
    def __init__(self, dim_model=8, n_head=2, dim_feedforward=16, n_layers=1):
        super().__init__()
        layer = nn.TransformerDecoderLayer(
            d_model=dim_model,
            nhead=n_head,
            dim_feedforward=dim_feedforward,
            batch_first=True,
            dropout=0.0,
        )
        self.transformer_decoder = nn.TransformerDecoder(layer, num_layers=n_layers)

    def forward(self, tgt, memory):
        tgt_mask = generate_tgt_mask(tgt.shape[1]).float()  # bug
        return self.transformer_decoder(tgt=tgt, memory=memory, tgt_mask=tgt_mask)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    decoder = PeptideDecoder().eval()
    tgt = torch.randn(2, 5, 8)
    memory = torch.randn(2, 3, 8)
    with torch.no_grad():
        return decoder(tgt, memory)
