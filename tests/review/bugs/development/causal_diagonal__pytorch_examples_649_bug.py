"""The word language model is given the flipped look-ahead mask the report printed: -inf below the diagonal, 0 above, so tokens read the words they must predict.

Report: https://github.com/pytorch/examples/issues/649
Class: causal_diagonal
"""

import torch
from torch import nn


class TransformerModel(nn.Module):
    def __init__(self, ninp, nhead, nhid):
        super().__init__()
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout=0.0)
        self.transformer_encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def _generate_square_subsequent_mask(self, sz):
        return torch.tril(torch.full((sz, sz), float("-inf")), diagonal=-1)  # bug

    def forward(self, src):
        src_mask = self._generate_square_subsequent_mask(len(src))
        return self.transformer_encoder(src, src_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = TransformerModel(8, 2, 16)
    return model(torch.randn(3, 2, 8))  # (S, N, E)
