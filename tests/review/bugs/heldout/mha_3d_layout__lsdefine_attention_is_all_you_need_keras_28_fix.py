"""The mask is tiled (``head * N + sample``), the order of the head-major layout, as the report proposes.

Report: https://github.com/lsdefine/attention-is-all-you-need-keras/issues/28
Class: mha_3d_layout
"""

import torch


def split_heads(x, n_head):
    s = x.shape
    x = x.reshape(s[0], s[1], n_head, s[2] // n_head).permute(2, 0, 1, 3)
    return x.reshape(-1, s[1], s[2] // n_head)  # (n_head * N, L, d)


def merge_heads(x, n_head):
    s = x.shape
    x = x.reshape(n_head, -1, s[1], s[2]).permute(1, 2, 0, 3)
    return x.reshape(-1, s[1], n_head * s[2])


def multi_head_attention(q, k, v, mask, n_head):
    qs, ks, vs = (split_heads(t, n_head) for t in (q, k, v))
    mask = mask.repeat(n_head, 1, 1)  # tiled, as the report proposes
    attn = torch.bmm(qs, ks.transpose(1, 2)) / qs.size(-1) ** 0.5
    attn = attn + (-1e10) * (1 - mask)
    return merge_heads(torch.bmm(attn.softmax(dim=-1), vs), n_head)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 8)
    mask = torch.ones(2, 3, 3)
    mask[0, :, 2] = 0
    mask[1, :, 1:] = 0
    return multi_head_attention(q, k, v, mask, n_head=2)
