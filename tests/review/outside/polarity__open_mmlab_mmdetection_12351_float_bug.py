"""With the language mask made float first, the fill still targets `attention_mask == 0`, but a True (1.0) entry marks a padded token: the real tokens get -9e15 and the padded ones are attended.

Report: https://github.com/open-mmlab/mmdetection/issues/12351
Class: polarity
Decidable: code

The report names two mistakes in the same lines (the boolean dtype, and the polarity: True marks a
position that may not be attended); this case holds the second one alone, in a helper that
builds the language bias in float.
"""

import torch
from torch import nn


def lang_attention_bias(attention_mask_l, tgt_len, dtype):
    attention_mask = attention_mask_l[:, None, None, :].to(dtype)  # True = padding -> 1.0
    attention_mask = attention_mask.expand(-1, 1, tgt_len, -1)
    return attention_mask.masked_fill(attention_mask == 0, -9e15)  # bug


class LangToVisionAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** (-0.5)

    def forward(self, vision, lang, attention_mask_l):
        bsz, tgt_len, _ = vision.shape
        src_len = lang.shape[1]
        q = vision.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = lang.view(bsz, src_len, self.num_heads, self.head_dim).transpose(1, 2)
        attn_weights = torch.einsum("bhqd,bhkd->bhqk", q * self.scale, k)
        attn_weights = attn_weights + lang_attention_bias(attention_mask_l, tgt_len, attn_weights.dtype)  # bug
        return attn_weights.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = LangToVisionAttention(dim=8, num_heads=2)
    vision = torch.randn(2, 3, 8)
    lang = torch.randn(2, 4, 8)
    attention_mask_l = torch.tensor([[False, False, True, True], [False, False, False, True]])  # True = padding
    return attn(vision, lang, attention_mask_l)
