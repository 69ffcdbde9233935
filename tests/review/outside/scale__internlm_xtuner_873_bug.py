"""The DeepSeek-V2 varlen attention dispatch calls varlen_flash_attn without the model's softmax_scale (q_head_dim ** -0.5 times the YaRN mscale squared), so the flash-attention kernel falls back to its default 1 / sqrt(head_dim).

Report: https://github.com/InternLM/xtuner/pull/873
Class: scale
Decidable: code
"""

import math

import torch
import torch.nn.functional as F


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           dropout_p=0.0, softmax_scale=None, causal=False, return_attn_probs=False):
    """CPU stand-in for flash_attn's varlen kernel: q, k, v are [total_tokens, nheads, headdim],
    attention runs inside each packed sequence, softmax_scale defaults to 1 / sqrt(headdim)."""
    out = torch.empty_like(q)
    for start, end in zip(cu_seqlens_q[:-1].tolist(), cu_seqlens_q[1:].tolist()):
        out[start:end] = F.scaled_dot_product_attention(
            q[start:end].transpose(0, 1), k[start:end].transpose(0, 1), v[start:end].transpose(0, 1),
            dropout_p=dropout_p, is_causal=causal, scale=softmax_scale,
        ).transpose(0, 1)
    return out


def varlen_flash_attn(query_states, key_states, value_states, cumulative_len, max_seqlen,
                      dropout_p=0.0, causal=True):
    q_unpad, k_unpad, v_unpad = (
        query_states.flatten(0, 1), key_states.flatten(0, 1), value_states.flatten(0, 1))
    attn_output = flash_attn_varlen_func(
        q_unpad, k_unpad, v_unpad, cumulative_len, cumulative_len, max_seqlen, max_seqlen,
        dropout_p=dropout_p, return_attn_probs=False, causal=causal)  # bug
    return attn_output.unsqueeze(0)


def yarn_get_mscale(scale=1, mscale=1):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


class DeepseekV2Attention:
    def __init__(self, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8, rope_scaling=None):
        self.qk_nope_head_dim = qk_nope_head_dim
        self.qk_rope_head_dim = qk_rope_head_dim
        self.v_head_dim = v_head_dim
        self.q_head_dim = qk_nope_head_dim + qk_rope_head_dim
        self.is_causal = True
        self.softmax_scale = self.q_head_dim ** (-0.5)
        if rope_scaling is not None:
            mscale_all_dim = rope_scaling.get("mscale_all_dim", 0)
            scaling_factor = rope_scaling["factor"]
            if mscale_all_dim:
                mscale = yarn_get_mscale(scaling_factor, mscale_all_dim)
                self.softmax_scale = self.softmax_scale * mscale * mscale

    def varlen_attn(self, query_states, key_states, value_states, cumulative_len, max_seqlen):
        """query_states, key_states: [bsz, num_heads, q_len, q_head_dim]; value_states: [..., v_head_dim]."""
        if self.q_head_dim != self.v_head_dim:
            value_states = F.pad(value_states, [0, self.q_head_dim - self.v_head_dim])

        # Reashape to the expected shape for Flash Attention
        query_states = query_states.transpose(1, 2)
        key_states = key_states.transpose(1, 2)
        value_states = value_states.transpose(1, 2)

        attn_output = varlen_flash_attn(
            query_states, key_states, value_states, cumulative_len, max_seqlen,
            causal=self.is_causal, dropout_p=0.0)  # bug

        if self.q_head_dim != self.v_head_dim:
            attn_output = attn_output[:, :, :, : self.v_head_dim]
        return attn_output


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attention = DeepseekV2Attention(rope_scaling={"factor": 40, "mscale_all_dim": 0.707})
    query_states = torch.randn(1, 2, 7, 12) * 2.0
    key_states = torch.randn(1, 2, 7, 12) * 2.0
    value_states = torch.randn(1, 2, 7, 8)
    cumulative_len = torch.tensor([0, 3, 7])  # two packed sequences of 3 and 4 tokens
    return attention.varlen_attn(query_states, key_states, value_states, cumulative_len, 4)
