"""As for OPT, the scores plus mask are clamped at finfo.min and a float16 softmax is upcast to float32.

Report: https://github.com/huggingface/transformers/pull/18057
Class: additive_sum_overflow
"""

import torch
from torch import nn


def _make_causal_mask(tgt_len, dtype):
    mask = torch.full((tgt_len, tgt_len), float("-inf"))
    mask_cond = torch.arange(tgt_len)
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(tgt_len, 1), 0)
    return mask.to(dtype)[None, None, :, :]


def _expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.bool(), torch.finfo(dtype).min)


def xglm_attention_probs(query_states, key_states, attention_mask, num_heads):
    bsz_heads, tgt_len, _ = query_states.shape
    bsz, src_len = bsz_heads // num_heads, key_states.shape[1]
    attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
    attn_weights = attn_weights.view(bsz, num_heads, tgt_len, src_len) + attention_mask
    attn_weights = torch.max(attn_weights, torch.tensor(torch.finfo(attn_weights.dtype).min))
    attn_weights = attn_weights.view(bsz * num_heads, tgt_len, src_len)
    # upcast to fp32 if the weights are in fp16
    if attn_weights.dtype == torch.float16:
        return nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(torch.float16)
    return nn.functional.softmax(attn_weights, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    dtype = torch.float16
    query = torch.randn(1, 3, 4).to(dtype)
    key = (-8 * query[:, :1]).expand(1, 3, 4)  # the pad row's scores are far below zero
    padding = torch.tensor([[0, 1, 1]])  # left padding: [pad, token, token]
    attention_mask = _expand_mask(padding, dtype, tgt_len=3) + _make_causal_mask(3, dtype)
    return xglm_attention_probs(query, key, attention_mask, num_heads=1)
