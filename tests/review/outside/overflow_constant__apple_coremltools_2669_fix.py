"""The op that adds the finfo(float32).min mask is kept in float32 (no cast to float16), so masked scores stay finite and the fully masked rows of a left-padded batch stay finite.

Report: https://github.com/apple/coremltools/pull/2669
Class: overflow_constant
"""

import torch


def _prepare_4d_causal_attention_mask(attention_mask, seq_len):
    min_dtype = torch.finfo(torch.float32).min
    causal_mask = torch.full((seq_len, seq_len), min_dtype).triu(1)
    causal_mask = causal_mask[None, None, :, :].expand(attention_mask.shape[0], 1, -1, -1).clone()
    padding_mask = attention_mask[:, None, None, :] == 0
    return causal_mask.masked_fill(padding_mask, min_dtype)


def eager_attention_fp16(query, key, value, causal_mask):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) / query.shape[-1] ** 0.5
    attn_weights = attn_weights.float() + causal_mask
    attn_weights = attn_weights.softmax(dim=-1)
    return torch.matmul(attn_weights.to(value.dtype), value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 1, 4, 8).half().unbind(0)
    attention_mask = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])  # the first sample is left-padded
    causal_mask = _prepare_4d_causal_attention_mask(attention_mask, 4)
    return eager_attention_fp16(query, key, value, causal_mask)
