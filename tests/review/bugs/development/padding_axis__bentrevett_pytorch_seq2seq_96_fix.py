"""``trg_pad_mask`` is unsqueezed at dims 1 and 2: combined with the subsequent mask it hides the padded target keys from every row.

Report: https://github.com/bentrevett/pytorch-seq2seq/issues/96
Class: padding_axis
"""

import torch


def make_trg_mask(trg, trg_pad_idx):
    trg_pad_mask = (trg != trg_pad_idx).unsqueeze(1).unsqueeze(2)
    trg_len = trg.shape[1]
    trg_sub_mask = torch.tril(torch.ones((trg_len, trg_len))).bool()
    return trg_pad_mask & trg_sub_mask  # (batch, 1, trg_len, trg_len)


def attention(query, key, value, mask):
    energy = torch.matmul(query, key.permute(0, 1, 3, 2)) / query.size(-1) ** 0.5
    energy = energy.masked_fill(mask == 0, -1e10)
    return torch.matmul(torch.softmax(energy, dim=-1), value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    trg = torch.tensor([[2, 4, 6, 1, 1], [2, 5, 1, 1, 1]])  # 1 = padding
    query, key, value = torch.randn(3, 2, 2, 5, 4)
    return attention(query, key, value, make_trg_mask(trg, 1))
