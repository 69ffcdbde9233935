"""``get_mask_from_lengths`` returns ``mask ^ 1``, the fix in the report: 1 exactly on padded frames, which the attention fills.

Report: https://github.com/r9y9/deepvoice3_pytorch/issues/172
Class: invert_non_bool
"""

import torch


def get_mask_from_lengths(memory, memory_lengths):
    mask = memory.data.new(memory.size(0), memory.size(1)).byte().zero_()
    for idx, length in enumerate(memory_lengths):
        mask[idx][:length] = 1
    return mask ^ 1


def attention(query, keys, values, mask, mask_value=-float("inf")):
    x = torch.bmm(query, keys.transpose(1, 2))  # (B, T_dec, T_enc)
    mask = mask.view(query.size(0), 1, -1).expand_as(x)
    x = x.masked_fill(mask.bool(), mask_value)
    x = torch.softmax(x, dim=-1)
    return torch.bmm(x, values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    keys = values = torch.randn(2, 5, 8)
    query = torch.randn(2, 2, 8)
    mask = get_mask_from_lengths(keys, [5, 3])
    return attention(query, keys, values, mask)
