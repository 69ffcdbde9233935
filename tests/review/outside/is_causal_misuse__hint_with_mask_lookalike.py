"""nn.TransformerEncoder called with mask=generate_square_subsequent_mask(T) and is_causal=True.

Correct: for the encoder is_causal is only a hint that the mask passed is the causal one, and here
it is; the mask itself is what is applied, so the hint and the mask agree.
"""

import torch
from torch import nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True
    )
    encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False).eval()
    src = torch.randn(2, 5, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(src.size(1))
    with torch.no_grad():
        return encoder(src, mask=mask, is_causal=True)
