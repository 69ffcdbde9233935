"""The padded keys are filled with the report's finite neginf(dtype) value, so a sample whose keys are all padding gets a uniform row instead of NaN.

Report: https://github.com/pytorch/pytorch/issues/26098
Class: no_allowed_key
"""

import torch
import torch.nn.functional as F

NEAR_INF = 1e20
NEAR_INF_FP16 = 65504


def neginf(dtype):
    if dtype is torch.float16:
        return -NEAR_INF_FP16
    else:
        return -NEAR_INF


def multi_head_attention_scores(q, k, bsz, num_heads, key_padding_mask=None):
    tgt_len, src_len = q.size(1), k.size(1)
    attn_output_weights = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5
    if key_padding_mask is not None:
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        attn_output_weights = attn_output_weights.masked_fill(
            key_padding_mask.unsqueeze(1).unsqueeze(2),
            neginf(attn_output_weights.dtype),
        )
        attn_output_weights = attn_output_weights.view(bsz * num_heads, tgt_len, src_len)
    attn_output_weights = F.softmax(attn_output_weights, dim=-1)
    return attn_output_weights


def run() -> torch.Tensor:
    torch.manual_seed(0)
    bsz, num_heads, seq_len, head_dim = 3, 2, 5, 4
    q = torch.randn(bsz * num_heads, seq_len, head_dim)
    k = torch.randn(bsz * num_heads, seq_len, head_dim)
    # as in the report's (torch.rand(32, 10) < 0.7): some samples are padded everywhere
    padding_mask = torch.tensor(
        [
            [False, False, True, True, True],
            [True, True, True, True, True],
            [False, True, False, True, True],
        ]
    )
    return multi_head_attention_scores(q, k, bsz, num_heads, key_padding_mask=padding_mask)
