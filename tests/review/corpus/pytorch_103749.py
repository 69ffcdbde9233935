"""A padding mask broadcast along the query axis: the padded queries' rows have no key.

Written from pytorch/pytorch#103749 (rows with no allowed key returning NaN).
"""

import torch.nn.functional as F


def attend(q, k, v, ids, pad_id):
    real = ids != pad_id
    allowed = real.unsqueeze(1).unsqueeze(-1)  # [B, 1, S, 1]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # expect: AM601
