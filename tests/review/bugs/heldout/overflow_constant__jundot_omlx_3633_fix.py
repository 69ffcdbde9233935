"""The mask is filled with the model dtype's finite minimum (``torch.finfo(dtype).min``), so a window of padding stays finite instead of -inf.

Report: https://github.com/jundot/omlx/pull/3633
Class: overflow_constant
"""

import torch


def _update_attention_mask(attention_mask, local_attention):
    dtype = attention_mask.dtype
    min_value = torch.finfo(dtype).min
    batch_size, seq_len = attention_mask.shape
    additive_mask = torch.where(attention_mask == 1, 0.0, min_value)
    additive_mask = additive_mask[:, None, None, :]
    global_attention_mask = additive_mask.expand(batch_size, 1, seq_len, seq_len)
    rows = torch.arange(seq_len)[None, :]
    distance = (rows - rows.T).abs()
    window_mask = (distance <= local_attention // 2)[None, None, :, :]
    window_mask = window_mask.expand(global_attention_mask.shape)
    sliding_window_mask = torch.where(window_mask, global_attention_mask, min_value)
    return global_attention_mask.to(dtype), sliding_window_mask.to(dtype)


def attention(q, k, v, mask, scale):
    # the softmax that mx.fast.scaled_dot_product_attention takes over scores + mask
    scores = (q @ k.transpose(-1, -2)) * scale + mask
    return torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    dtype = torch.float16
    attention_mask = torch.tensor([[1, 1, 1, 0, 0, 0]], dtype=dtype)  # a short, padded query
    _, sliding_window_mask = _update_attention_mask(attention_mask, local_attention=2)
    q, k, v = torch.randn(3, 1, 2, 6, 8).to(dtype).unbind(0)
    return attention(q, k, v, sliding_window_mask, scale=8**-0.5)
