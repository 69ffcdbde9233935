"""The 3-D attention mask is merged with the key padding mask over columns (keys) only: every row keeps an allowed key.

Report: https://github.com/pytorch/pytorch/issues/63271
Class: no_allowed_key
"""

import torch


def merge_masks(attn_mask, key_padding_mask, num_heads):
    pad = key_padding_mask.repeat_interleave(num_heads, dim=0)  # (bsz * num_heads, src_len)
    return attn_mask | pad[:, None, :]


def run() -> torch.Tensor:
    torch.manual_seed(0)
    bsz, num_heads, src_len = 1, 2, 5
    causal = torch.ones(src_len, src_len, dtype=torch.bool).triu(1)
    attn_mask = causal.expand(bsz * num_heads, -1, -1)  # True = masked
    key_padding_mask = torch.tensor([[False, False, False, False, True]])  # last is padding
    mask = merge_masks(attn_mask, key_padding_mask, num_heads)
    scores = torch.randn(bsz * num_heads, src_len, src_len).masked_fill(mask, float("-inf"))
    return scores.softmax(dim=-1)
