"""A decoder mask built with torch.finfo(torch.float32).min is cast to float16 where the attention runs in half precision, so the sentinel becomes -inf and the fully masked rows of a left-padded batch turn into NaN.

Report: https://github.com/apple/coremltools/pull/2669
Class: overflow_constant
Decidable: code

The report is about the converter inserting a cast(fp32 -> fp16) in front of the op that adds
the mask; this is the smallest faithful reproduction in PyTorch: the same mask, the same cast
written out, then the softmax.
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
    attn_weights = attn_weights + causal_mask.to(torch.float16)  # bug
    attn_weights = attn_weights.float().softmax(dim=-1)  # bug
    return torch.matmul(attn_weights.to(value.dtype), value)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query, key, value = torch.randn(3, 2, 1, 4, 8).half().unbind(0)
    attention_mask = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])  # the first sample is left-padded
    causal_mask = _prepare_4d_causal_attention_mask(attention_mask, 4)
    return eager_attention_fp16(query, key, value, causal_mask)
