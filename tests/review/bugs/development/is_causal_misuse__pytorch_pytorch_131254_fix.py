"""The mask is not causal, so ``is_causal`` stays False and the layer applies ``src_mask`` as given.

Report: https://github.com/pytorch/pytorch/issues/131254
Class: is_causal_misuse
"""

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    d_model, len_seq, batch_size = 4, 5, 2
    encoder = torch.nn.TransformerEncoderLayer(
        d_model, nhead=1, dim_feedforward=16, dropout=0.0, batch_first=True
    )
    inputs = torch.randn(batch_size, len_seq, d_model)
    mask = torch.zeros(len_seq, len_seq)
    mask[:, -1] = float("-inf")  # the last position is padding
    return encoder.forward(inputs, src_mask=mask, is_causal=False)
