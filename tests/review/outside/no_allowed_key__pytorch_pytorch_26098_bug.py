"""multi_head_attention_forward fills the padded keys with -inf; a sample whose keys are all padding gets a row of -inf, and the softmax turns it into NaN.

Report: https://github.com/pytorch/pytorch/issues/26098
Class: no_allowed_key
Decidable: values
"""

import torch
import torch.nn.functional as F


def multi_head_attention_scores(q, k, bsz, num_heads, key_padding_mask=None):
    tgt_len, src_len = q.size(1), k.size(1)
    attn_output_weights = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5
    if key_padding_mask is not None:
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        attn_output_weights = attn_output_weights.masked_fill(
            key_padding_mask.unsqueeze(1).unsqueeze(2),
            float("-inf"),  # bug
        )
        attn_output_weights = attn_output_weights.view(bsz * num_heads, tgt_len, src_len)
    attn_output_weights = F.softmax(attn_output_weights, dim=-1)  # bug
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
