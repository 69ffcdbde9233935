"""The tokenizer's mask reaches the penalty through another function's parameter.

Written from microsoft/torchscale#97: the encoder filled -1e8 where the Hugging Face mask is 1.
Here the mask arrives as ``encoder_padding_mask``, a name that says True = padding, from a
caller that passed the tokenizer's ``attention_mask``: the helper is read again with the
caller's mask, and the finding goes to the call, where the wrong mask is passed.  The -1e8 is
no finding here: this file does not say it runs in half precision.
"""

import torch


def encoder_bias(encoder_padding_mask):
    bias = torch.zeros(encoder_padding_mask.shape)
    return bias.masked_fill(encoder_padding_mask.to(torch.bool), -1e8)


def encode(batch):
    return encoder_bias(batch["attention_mask"])  # expect: AM104
