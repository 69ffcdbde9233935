"""A padding mask from ``.eq(pad)`` handed to SDPA as it is.

Written from InseeFrLab/torchTextClassifiers#92 (the mask was inverted when passed to
``F.scaled_dot_product_attention``).
"""

from torch.nn import functional as fn


def attend(q, k, v, input_ids, padding_idx):
    mask = input_ids.eq(padding_idx).unsqueeze(1).unsqueeze(2)  # [B, 1, 1, S], True = padding
    return fn.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # expect: AM101
