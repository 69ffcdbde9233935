"""The causal mask is masked_fill-ed with finfo.min where the padding mask is set, so it cannot overflow, as the pull request does.

Report: https://github.com/huggingface/transformers/pull/27114
Class: additive_sum_overflow
"""

import torch


class AttentionMaskConverter:
    def __init__(self, is_causal):
        self.is_causal = is_causal

    def to_4d(self, attention_mask_2d, query_length, key_value_length, dtype=torch.float32):
        input_shape = (attention_mask_2d.shape[0], query_length)
        causal_4d_mask = None
        if input_shape[-1] > 1 and self.is_causal:
            causal_4d_mask = self._make_causal_mask(input_shape, dtype)
        expanded_attn_mask = self._expand_mask(attention_mask_2d, dtype, tgt_len=input_shape[-1])
        if causal_4d_mask is not None:
            expanded_attn_mask = causal_4d_mask.masked_fill(
                expanded_attn_mask.bool(), torch.finfo(dtype).min
            )
        return expanded_attn_mask

    @staticmethod
    def _make_causal_mask(input_ids_shape, dtype):
        bsz, tgt_len = input_ids_shape
        mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
        mask_cond = torch.arange(mask.size(-1))
        mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
        mask = mask.to(dtype)
        return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)

    @staticmethod
    def _expand_mask(mask, dtype, tgt_len=None):
        bsz, src_len = mask.size()
        tgt_len = tgt_len if tgt_len is not None else src_len
        expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
        inverted_mask = 1.0 - expanded_mask
        return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def run() -> torch.Tensor:
    converter = AttentionMaskConverter(True)
    return converter.to_4d(torch.tensor([[0, 0, 0, 1, 1]]), 5, 5)
