"""The head split keeps the batch axis first (``[0, 2, 1, 3]``), so rows are ``sample * n_head + head``, the order ``repeat_elements`` gives the mask.

Report: https://github.com/lsdefine/attention-is-all-you-need-keras/issues/36
Class: mha_3d_layout
"""

import torch


def reshape1(x, n_head):
    s = x.shape
    x = x.reshape(s[0], s[1], n_head, s[2] // n_head)
    x = x.permute(0, 2, 1, 3)
    return x.reshape(-1, s[1], s[2] // n_head)


def reshape2(x, n_head):
    s = x.shape
    x = x.reshape(-1, n_head, s[1], s[2])
    x = x.permute(0, 2, 1, 3)
    return x.reshape(-1, s[1], n_head * s[2])


def multi_head_attention(q, k, v, mask, n_head):
    qs, ks, vs = (reshape1(t, n_head) for t in (q, k, v))
    mask = mask.repeat_interleave(n_head, dim=0)  # K.repeat_elements(mask, n_head, 0)
    attn = torch.bmm(qs, ks.transpose(1, 2)) / qs.size(-1) ** 0.5
    attn = attn + (-1e10) * (1 - mask)
    head = torch.bmm(attn.softmax(dim=-1), vs)
    return reshape2(head, n_head)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 3, 8)
    mask = torch.ones(2, 3, 3)
    mask[1, :, 1:] = 0  # sample 1 has one real token
    return multi_head_attention(q, k, v, mask, n_head=2)
