"""The set-transformer mask hides only padded keys (``[:, :len_mem]``): every query row keeps an allowed key, and padded query rows are dropped afterwards.

Report: https://github.com/dmlc/dgl/issues/2657
Class: no_allowed_key
"""

import torch as th


def attention(queries, keys, values, lengths_x, lengths_mem, d_head):
    batch_size, _, max_len_x, _ = queries.shape
    max_len_mem = keys.shape[2]
    e = th.einsum("bhxd,bhyd->bhxy", queries, keys)  # (B, num_heads, max_len_x, max_len_mem)
    e = e / d_head**0.5
    mask = th.zeros(batch_size, max_len_x, max_len_mem)
    for i in range(batch_size):
        mask[i, :, : lengths_mem[i]].fill_(1)
    mask = mask.unsqueeze(1)
    e.masked_fill_(mask == 0, -float("inf"))
    alpha = th.softmax(e, dim=-1)
    return th.einsum("bhxy,bhyd->bhxd", alpha, values)


def run() -> th.Tensor:
    th.manual_seed(0)
    queries = th.randn(2, 2, 3, 4)
    keys = th.randn(2, 2, 3, 4)
    values = th.randn(2, 2, 3, 4)
    return attention(queries, keys, values, lengths_x=[3, 2], lengths_mem=[3, 2], d_head=4)
