"""With grouped queries the mask is reshaped to (B, 1, 1, L, S), so each sample's mask stays on its own batch row.

Report: https://github.com/ml-explore/mlx-lm/pull/1903
Class: mha_3d_layout
"""

import torch


def gemma2_attention(queries, keys, values, mask, n_heads, n_kv_heads, scale, softcap=50.0):
    B, _, L, head_dim = queries.shape  # (B, n_heads, L, D); keys, values: (B, n_kv_heads, S, D)
    repeats = n_heads // n_kv_heads
    queries = queries * scale
    if repeats > 1:
        queries = queries.reshape(B, n_kv_heads, repeats, L, head_dim)
        keys = keys.unsqueeze(2)
        values = values.unsqueeze(2)
        if mask is not None:
            mask = mask.unsqueeze(1)  # (B, 1, L, S) -> (B, 1, 1, L, S)
    scores = queries @ keys.transpose(-1, -2)
    scores = torch.tanh(scores / softcap) * softcap
    if mask is not None:
        scores = scores + mask
    scores = torch.softmax(scores, dim=-1)
    output = scores @ values
    return output.reshape(B, n_heads, L, head_dim)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    B, n_heads, n_kv_heads, L, D = 2, 4, 2, 3, 8  # batch size equals n_kv_heads
    queries = torch.randn(B, n_heads, L, D)
    keys = torch.randn(B, n_kv_heads, L, D)
    values = torch.randn(B, n_kv_heads, L, D)
    padding = torch.tensor([[1, 1, 1], [1, 1, 0]]).bool()  # the second sample is padded
    mask = torch.zeros(B, 1, L, L).masked_fill(
        ~padding[:, None, None, :], float("-inf")
    )  # (B, 1, L, S)
    return gemma2_attention(queries, keys, values, mask, n_heads, n_kv_heads, scale=D**-0.5)
