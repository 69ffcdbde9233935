"""The softmax runs over dim=-1, the key patches, as the author confirmed.

Report: https://github.com/nerminnuraydogan/vision-transformer/issues/1
Class: softmax_axis
"""

import torch
import torch.nn.functional as F


def self_attention(patches, w_q, w_k, w_v):
    # patches: (batch, num_patches, dim)
    q = patches @ w_q  # (batch, num_patches, d)
    k = patches @ w_k
    v = patches @ w_v
    scores = q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5  # (batch, num_patches, num_patches)
    attention_weights = F.softmax(scores, dim=-1)
    return attention_weights @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    w_q, w_k, w_v = torch.randn(3, 8, 8).unbind(0)
    return self_attention(torch.randn(2, 5, 8), w_q, w_k, w_v)
