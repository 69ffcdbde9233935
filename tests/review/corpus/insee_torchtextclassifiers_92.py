"""A padding mask ``ids == PAD`` handed to SDPA unflipped.

Written from InseeFrLab/torchTextClassifiers#92 (LabelAttention's mask inverted when passed to
``F.scaled_dot_product_attention``).
"""

import torch.nn.functional as F


def label_attention(q, k, v, token_ids, pad_token_id):
    padding = token_ids == pad_token_id  # True = padding
    mask = padding[:, None, None, :]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # expect: AM101
