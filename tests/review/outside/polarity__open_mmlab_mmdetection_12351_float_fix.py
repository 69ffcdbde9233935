"""The float language bias is filled where the mask is True (a padded token), so only the padded tokens get -9e15.

Report: https://github.com/open-mmlab/mmdetection/issues/12351
Class: polarity
"""

import torch
from torch import nn


def lang_attention_bias(attention_mask_l, tgt_len, dtype):
    attention_mask = attention_mask_l[:, None, None, :].to(dtype)  # True = padding -> 1.0
    attention_mask = attention_mask.expand(-1, 1, tgt_len, -1)
    return torch.zeros_like(attention_mask).masked_fill(attention_mask == 1, -9e15)


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
        attn_weights = attn_weights + lang_attention_bias(attention_mask_l, tgt_len, attn_weights.dtype)
        return attn_weights.softmax(dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = LangToVisionAttention(dim=8, num_heads=2)
    vision = torch.randn(2, 3, 8)
    lang = torch.randn(2, 4, 8)
    attention_mask_l = torch.tensor([[False, False, True, True], [False, False, False, True]])  # True = padding
    return attn(vision, lang, attention_mask_l)
