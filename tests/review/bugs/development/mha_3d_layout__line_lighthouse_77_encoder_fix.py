"""The encoder layer builds its per-sample 3-D ``src_mask`` with ``repeat_interleave(nhead, dim=0)``, the batch-major layout the layer reads.

Report: https://github.com/line/lighthouse/pull/77
Class: mha_3d_layout
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.nhead = nhead
        self.layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward=16, dropout=0.0, batch_first=True
        )

    def forward(self, src, src_valid):
        # src_valid: (N, S), True = real token
        mask = ~src_valid[:, None, :].expand(-1, src.size(1), -1)  # (N, S, S), True = masked
        src_mask = mask.repeat_interleave(self.nhead, dim=0)
        return self.layer(src, src_mask=src_mask)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    encoder = Encoder(8, 2)
    src = torch.randn(2, 4, 8)
    src_valid = torch.tensor([[True, True, True, True], [True, True, False, False]])
    return encoder(src, src_valid)
