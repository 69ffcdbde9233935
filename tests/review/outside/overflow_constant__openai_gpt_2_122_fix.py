"""The masking constant is 1e4, which float16 holds, so the cast stays finite and (1-b) * 1e4 is 0 at the allowed positions.

Report: https://github.com/openai/gpt-2/pull/122
Class: overflow_constant
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
    w = w * b - torch.tensor(1e4).to(w.dtype) * (1 - b)
    return w


def multihead_attn(q, k, v):
    w = torch.matmul(q, k.transpose(-2, -1))
    w = w * torch.rsqrt(torch.tensor(float(v.shape[-1]))).to(w.dtype)
    w = mask_attn_weights(w)
    w = torch.softmax(w.float(), dim=-1).to(v.dtype)
    return torch.matmul(w, v)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 2, 4, 8).half().unbind(0)  # fp16 (mixed-precision) training
    return multihead_attn(q, k, v)
