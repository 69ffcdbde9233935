"""XLNet's ``input_mask`` is ``1.0 - attention_mask``, as the maintainers kept it: 1 exactly on padding, which is then masked.

Report: https://github.com/huggingface/transformers/pull/1389
Class: invert_non_bool
"""

import torch


def xlnet_attn_mask(attention_mask):
    input_mask = 1.0 - attention_mask
    data_mask = input_mask[None]  # (1, bsz, klen): 1 = padding
    attn_mask = data_mask[:, :, :, None]  # (1, bsz, klen, 1)
    return (attn_mask > 0).permute(1, 3, 0, 2)  # (bsz, 1, 1, klen), True = masked


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])  # from the tokenizer
    scores = torch.randn(2, 2, 4, 4)  # (bsz, heads, qlen, klen)
    scores = scores.masked_fill(xlnet_attn_mask(attention_mask), -1e30)
    return scores.softmax(-1)
