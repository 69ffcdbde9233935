"""attention_onnx builds the is_causal mask as ``ones(Q_len, K_len).tril(0)`` after appending past_key: with a KV cache each new query sees only keys [0, i] and loses the past.

Report: https://github.com/tinygrad/tinygrad/pull/15949
Class: causal_alignment
"""

import torch


def attention_onnx(Q, K, V, past_key=None, past_value=None, is_causal=0, scale=None):
    # Q, K, V: (batch, heads, seq, head_dim)
    if past_key is not None:
        K = torch.cat((past_key, K), dim=2)
    if past_value is not None:
        V = torch.cat((past_value, V), dim=2)
    effective_scale = scale if scale is not None else 1.0 / (Q.shape[-1] ** 0.5)
    scores = (Q @ K.transpose(-1, -2)) * effective_scale
    if is_causal:
        causal_mask = torch.ones(Q.shape[-2], K.shape[-2], dtype=torch.bool).tril(0)  # bug
        scores = scores.masked_fill(causal_mask.logical_not(), -float("inf"))  # bug
    qk_softmax = scores.softmax(-1)
    return qk_softmax @ V


def run() -> torch.Tensor:
    torch.manual_seed(0)
    past_key, past_value = torch.randn(2, 1, 2, 3, 8).unbind(0)  # three cached positions
    Q, K, V = torch.randn(3, 1, 2, 2, 8).unbind(0)  # two new positions
    return attention_onnx(Q, K, V, past_key, past_value, is_causal=1)
