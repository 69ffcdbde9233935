"""_expand_mask casts the 0/1 (or boolean) padding mask to the float dtype first, then inverts it with 1.0 - mask and fills the inverted positions with the dtype's minimum.

Correct: the `1.0 -` runs on a float tensor of 0.0 / 1.0 (the cast comes first), so it is a true
inversion; the result is 0 on real tokens and finfo.min on padding, added once to the scores.
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
    attention_mask = torch.tensor([[True, True, True, False], [True, True, True, True]])
    scores = torch.randn(2, 2, 4, 4)
    scores = scores + _expand_mask(attention_mask, scores.dtype)
    return torch.softmax(scores, dim=-1)
