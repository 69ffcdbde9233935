"""op_ext.attention's fallback builds the sequence-prefill kernel without ``sm_scale``, which defaults to 1.0: the scores are never divided by sqrt(head_dim).

Report: https://github.com/mlc-ai/mlc-llm/pull/3426
Class: scale
"""

import torch


def _attention_sequence_prefill(h_kv, h_q, d, dtype, causal=0, sm_scale=1.0):
    def batch_sequence_prefill_kv(q, k, v):
        # q: (batch, qo_len, h_q, d); k, v: (batch, kv_len, h_kv, d)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) * sm_scale
        return torch.einsum("bhqk,bkhd->bqhd", s.softmax(dim=-1), v)

    return batch_sequence_prefill_kv


def attention(q, k, v, attn_score_scaling_factor=1.0):
    b, s, h_q, d = q.shape
    t, h_kv, _ = k.shape[-3:]

    def _fallback():
        kernel = _attention_sequence_prefill(h_kv=h_kv, h_q=h_q, d=d, dtype=q.dtype)  # bug
        attn_output = kernel(q, k, v)
        return attn_output.reshape(b, s, h_q * d)

    return _fallback()


def run() -> torch.Tensor:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 4, 2, 16).unbind(0)  # (batch, seq, heads, head_dim)
    return attention(q, k, v)
