"""mask_attn_weights keeps the allowed logits with w*b and pushes the rest down with cast(1e10, w.dtype)*(1-b); in float16 the cast constant is inf, and inf * 0 at every allowed position makes the whole row NaN.

Report: https://github.com/openai/gpt-2/pull/122
Class: overflow_constant
Decidable: values

GPT-2's code is TensorFlow; this is the smallest faithful reproduction in PyTorch, with the
report's names (the cast of 1e10 to the weights' dtype is written with torch.tensor(...).to).
"""

import torch


def attention_mask(nd, ns, dtype):
    i = torch.arange(nd)[:, None]
    j = torch.arange(ns)
    m = i >= j - ns + nd
    return m.to(dtype)


def mask_attn_weights(w):
    # w has shape [batch, heads, dst_sequence, src_sequence]
    _, _, nd, ns = w.shape
    b = attention_mask(nd, ns, dtype=w.dtype)
    b = b.reshape(1, 1, nd, ns)
    w = w * b - torch.tensor(1e10).to(w.dtype) * (1 - b)  # bug
    return w


def multihead_attn(q, k, v):
    w = torch.matmul(q, k.transpose(-2, -1))
    w = w * torch.rsqrt(torch.tensor(float(v.shape[-1]))).to(w.dtype)
    w = mask_attn_weights(w)
    w = torch.softmax(w.float(), dim=-1).to(v.dtype)  # bug
    return torch.matmul(w, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).half().unbind(0)  # fp16 (mixed-precision) training
    return multihead_attn(q, k, v)
