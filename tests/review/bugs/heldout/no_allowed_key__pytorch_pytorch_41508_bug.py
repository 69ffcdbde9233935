"""A bucketed (sliding-window) attn_mask and a key_padding_mask together leave the last padded position no key: with need_weights=True its softmax row is NaN.

Report: https://github.com/pytorch/pytorch/issues/41508
Class: no_allowed_key
"""

import torch


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = torch.nn.MultiheadAttention(embed_dim=1, num_heads=1)
    x = torch.rand(4, 2, 1)  # (L, N, E)
    key_padding_mask = torch.tensor(
        [[False, False, False, False], [False, False, True, True]]  # bug
    )
    # each position attends only to itself and the previous position (True = masked)
    attn_mask = torch.tensor(
        [
            [False, True, True, True],
            [False, False, True, True],
            [True, False, False, True],
            [True, True, False, False],
        ]
    )
    out, _ = attn(x, x, x, key_padding_mask=key_padding_mask, attn_mask=attn_mask)  # bug
    return out
