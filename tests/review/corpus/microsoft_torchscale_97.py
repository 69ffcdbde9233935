"""A Hugging Face ``attention_mask`` (1 = real token) turned into a penalty on the real tokens.

Written from microsoft/torchscale#97: the encoder filled -1e8 where the tokenizer's mask is 1.
The -1e8 is no finding here: this file does not say it runs in half precision (torchscale's tree does,
and there it is one, AM202).
"""

import torch


def encoder_bias(attention_mask):
    bias = attention_mask.float()
    return bias.masked_fill(attention_mask.to(torch.bool), -1e8)  # expect: AM104
