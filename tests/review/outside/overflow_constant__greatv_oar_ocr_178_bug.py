"""create_left_padding_mask builds its finite sentinel as a -1e9 tensor cast to the model dtype; in float16 that cast gives -inf, so the queries inside the left padding (which reach only padding keys) get rows of -inf and NaN.

Report: https://github.com/GreatV/oar-ocr/pull/178
Class: overflow_constant
Decidable: values

The project is written in Rust (candle); this is the smallest faithful reproduction of the
reviewed mask builder in PyTorch, with the report's names.
"""

import math

import torch


def create_left_padding_mask(attention_mask, seq_len, dtype):
    causal = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
    mask_cond = causal[None, :, :] & attention_mask[:, None, :].bool()
    zero = torch.tensor(0.0).to(dtype).expand(mask_cond.shape)
    masked = torch.tensor(-1e9).to(dtype).expand(mask_cond.shape)  # bug
    return torch.where(mask_cond, zero, masked)[:, None, :, :]  # bug


def attention(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores + mask
    probs = torch.softmax(scores.float(), dim=-1).to(v.dtype)
    return probs @ v


def run() -> torch.Tensor:
    torch.manual_seed(0)
    dtype = torch.float16  # OAR_VL_DTYPE=f16, or the automatic fallback
    q, k, v = torch.randn(3, 2, 1, 4, 8).to(dtype).unbind(0)
    attention_mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])  # unequal lengths, left-padded
    mask = create_left_padding_mask(attention_mask, 4, dtype)
    return attention(q, k, v, mask)
