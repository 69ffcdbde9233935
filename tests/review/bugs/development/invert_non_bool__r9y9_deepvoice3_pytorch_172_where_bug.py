"""The encoder-length mask is a byte tensor inverted with ``~`` before ``torch.where``: 254 and 255 are both non-zero, so the fill value replaces every score.

Report: https://github.com/r9y9/deepvoice3_pytorch/issues/172
Class: invert_non_bool
"""

import torch


def get_mask_from_lengths(memory, memory_lengths):
    mask = memory.data.new(memory.size(0), memory.size(1)).byte().zero_()
    for idx, length in enumerate(memory_lengths):
        mask[idx][:length] = 1
    return mask


def attend(query, keys, values, text_positions_mask, mask_value=-1e4):
    x = torch.bmm(query, keys.transpose(1, 2)) / query.size(-1) ** 0.5  # (B, T_dec, T_enc)
    padded = ~text_positions_mask[:, None, :]  # bug
    x = torch.where(padded, mask_value, x)
    return torch.bmm(torch.softmax(x, dim=-1), values)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    keys = values = torch.randn(2, 5, 8)
    query = torch.randn(2, 3, 8)
    return attend(query, keys, values, get_mask_from_lengths(keys, [5, 2]))
