"""A Hugging Face ``attention_mask`` (1 = real token) turned into a penalty on the real tokens.

Written from microsoft/torchscale#97: the encoder filled -1e8 where the tokenizer's mask is 1.
"""

import torch


def encoder_bias(attention_mask):
    bias = attention_mask.float()
    return bias.masked_fill(attention_mask.to(torch.bool), -1e8)  # expect: AM104, AM202
