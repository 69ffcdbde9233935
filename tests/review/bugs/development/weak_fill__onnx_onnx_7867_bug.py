"""The reference Attention adds the -inf mask before the softcap: tanh maps -inf to -softcap, a finite logit, so masked keys keep weight.

Report: https://github.com/onnx/onnx/pull/7867
Class: weak_fill
"""

import torch


def _softcap(X, softcap):
    if softcap > 0:
        Y = X / softcap
        Y = torch.tanh(Y)
        return Y * softcap
    return X


def _compute_attention(Q, K, V, attn_mask, softcap):
    # Q, K, V: (batch, heads, seq, head_size); attn_mask: bool (q_seq, kv_seq), True = attend
    scale = (1 / Q.shape[3] ** 0.5) ** 0.5
    attn_bias = torch.zeros(attn_mask.shape, dtype=Q.dtype)
    attn_bias = attn_bias.masked_fill(~attn_mask, float("-inf"))
    qk_matmul_output = (Q * scale) @ (K.transpose(-2, -1) * scale)
    qk_with_bias = qk_matmul_output + attn_bias
    qk_with_bias = _softcap(qk_with_bias, softcap)  # bug
    qk_softmax = torch.softmax(qk_with_bias, dim=-1)
    return qk_softmax @ V


def run() -> torch.Tensor:
    torch.manual_seed(0)
    Q, K, V = torch.randn(3, 1, 2, 4, 8).unbind(0)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    return _compute_attention(Q, K, V, causal, softcap=2.0)
