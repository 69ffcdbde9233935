"""A padding mask broadcast along the query axis: the padded queries' rows have no key.

Written from pytorch/pytorch#103749 (SDPA returned NaN for the all-False rows a padding mask
added to the Boolean attention mask); here the all-False rows come from indexing a key-padding
mask onto the query axis.
"""

import torch.nn.functional as F


def attend(q, k, v, ids, pad_id):
    real = ids != pad_id
    allowed = real.unsqueeze(1).unsqueeze(-1)  # [B, 1, S, 1]  # expect: AM601
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
