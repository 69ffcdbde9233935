"""A hand-written multi_head_attention_forward that fills -inf where key_padding_mask is True, with the mask built as (src == PAD_IDX).

Correct: the mask is True exactly at the padded keys, and masked_fill fills where its mask is
True, so the padding is what gets -inf (no `== False` is needed); each sample has a real key.
"""

import torch
import torch.nn.functional as F

PAD_IDX = 0


def attention_weights(q, k, num_heads, key_padding_mask):
    bsz = key_padding_mask.size(0)
    tgt_len, src_len = q.size(1), k.size(1)
    attn_output_weights = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5
    attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
    attn_output_weights = attn_output_weights.masked_fill(
        key_padding_mask.unsqueeze(1).unsqueeze(2),  # [batch_size, 1, 1, src_len]
        float("-inf"),
    )
    attn_output_weights = attn_output_weights.view(bsz * num_heads, tgt_len, src_len)
    return F.softmax(attn_output_weights, dim=-1)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    src = torch.tensor([[5, 7, 9, 0], [4, 0, 0, 0]]).transpose(0, 1)  # [src_len, batch_size]
    padding_mask = (src == PAD_IDX).transpose(0, 1)  # [batch_size, src_len], True = padding
    q = torch.randn(2 * 2, 4, 4)
    k = torch.randn(2 * 2, 4, 4)
    return attention_weights(q, k, num_heads=2, key_padding_mask=padding_mask)
