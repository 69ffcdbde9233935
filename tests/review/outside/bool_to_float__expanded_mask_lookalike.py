"""A 0/1 tokenizer attention_mask expanded to [bsz, 1, tgt_len, src_len], inverted with 1.0 - mask and filled with torch.finfo(dtype).min before it is added to the scores.

Correct: the 0/1 mask is not added as it is; _expand_mask turns it into an additive mask that is 0
at the kept tokens and finfo.min at the padding, so adding it to the scores removes the padding.
"""

import torch


def _expand_mask(mask, dtype, tgt_len=None):
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 2, 4, 8).unbind(0)
    attention_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])  # 1 = token, 0 = padding
    attn_weights = query @ key.transpose(-1, -2) / 8 ** 0.5
    attn_weights = attn_weights + _expand_mask(attention_mask, attn_weights.dtype)
    attn_weights = attn_weights.softmax(dim=-1)
    return attn_weights @ value
