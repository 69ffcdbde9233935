"""The tokenizer's attention_mask (1 = real token) is used as the encoder's padding mask, so -1e8 is filled where the tokens are real.

Report: https://github.com/microsoft/torchscale/issues/97
Class: polarity
"""

import torch
import torch.nn.functional as F


def encoder_self_attention(x, attention_mask, num_heads=2):
    # x: (bsz, src_len, embed_dim); attention_mask from the tokenizer: 1 = real token, 0 = padding
    bsz, src_len, embed_dim = x.shape
    encoder_padding_mask = attention_mask  # bug
    q = k = v = x.view(bsz, src_len, num_heads, -1).transpose(1, 2)  # (bsz, heads, src_len, d)
    attn_weights = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5  # (bsz, heads, tgt, src)
    attn_weights = attn_weights.masked_fill(
        encoder_padding_mask.unsqueeze(1).unsqueeze(2).to(torch.bool),  # bug
        -1e8,
    )
    attn_probs = F.softmax(attn_weights, dim=-1)
    return (attn_probs @ v).transpose(1, 2).reshape(bsz, src_len, embed_dim)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    return encoder_self_attention(torch.randn(2, 4, 8), attention_mask)
