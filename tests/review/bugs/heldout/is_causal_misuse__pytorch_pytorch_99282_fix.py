"""``nn.MultiheadAttention`` gets the padding mask without the ``is_causal`` hint and applies it.

Report: https://github.com/pytorch/pytorch/issues/99282
Class: is_causal_misuse
"""

import torch
import torch.nn as nn


def run() -> torch.Tensor:
    torch.manual_seed(0)
    batch_size, seq_len, embedding_dim, num_heads = 2, 4, 8, 2
    mha = nn.MultiheadAttention(num_heads=num_heads, embed_dim=embedding_dim, batch_first=True)
    x = torch.randn(batch_size, seq_len, embedding_dim)
    mask = torch.zeros(seq_len, seq_len)
    mask[:, 0] = float("-inf")  # the first position is padding
    return mha(x, x, x, need_weights=False, attn_mask=mask)[0]
