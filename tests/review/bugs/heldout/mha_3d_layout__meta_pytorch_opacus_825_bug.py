"""With ``batch_first=True`` the ``(bsz * num_heads, tgt_len, head_dim)`` output is viewed straight to ``(bsz, tgt_len, embed_dim)``: head rows are spliced into time positions.

Report: https://github.com/meta-pytorch/opacus/pull/825
Class: mha_3d_layout
"""

import torch
import torch.nn.functional as F


def dp_multihead_attention(query, key, value, attn_mask, num_heads):
    bsz, tgt_len, embed_dim = query.size()
    head_dim = embed_dim // num_heads
    q = query.view(bsz, tgt_len, num_heads, head_dim).transpose(1, 2)
    q = q.reshape(bsz * num_heads, tgt_len, head_dim) * head_dim**-0.5
    k = (
        key.view(bsz, -1, num_heads, head_dim)
        .transpose(1, 2)
        .reshape(bsz * num_heads, -1, head_dim)
    )
    v = (
        value.view(bsz, -1, num_heads, head_dim)
        .transpose(1, 2)
        .reshape(bsz * num_heads, -1, head_dim)
    )
    attn_output_weights = torch.bmm(q, k.transpose(1, 2))  # (bsz * num_heads, tgt_len, src_len)
    attn_output_weights = attn_output_weights.masked_fill(attn_mask, float("-inf"))
    attn_output = torch.bmm(F.softmax(attn_output_weights, dim=-1), v)
    return attn_output.view(bsz, tgt_len, embed_dim)  # bug


def run() -> torch.Tensor:
    torch.manual_seed(0)
    query = key = value = torch.randn(2, 3, 8)
    padding = torch.tensor([[False, False, False], [False, False, True]])
    attn_mask = padding[:, None, :].expand(-1, 3, -1).repeat_interleave(2, dim=0)
    return dp_multihead_attention(query, key, value, attn_mask, num_heads=2)
