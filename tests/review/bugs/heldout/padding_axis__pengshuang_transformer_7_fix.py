"""The encoder-decoder padding mask is built from the source sequence, ``padding_mask(src_seq, tgt_seq)``: padded encoder keys are hidden from every decoder query.

Report: https://github.com/pengshuang/Transformer/issues/7
Class: padding_axis
"""

import torch


def padding_mask(seq_k, seq_q):
    len_q = seq_q.size(1)
    pad_mask = seq_k.eq(0)
    return pad_mask.unsqueeze(1).expand(-1, len_q, -1)  # B x L_q x L_k


def context_attention(dec_output, enc_outputs, src_seq, tgt_seq):
    context_attn_mask = padding_mask(src_seq, tgt_seq)
    attention = torch.bmm(dec_output, enc_outputs.transpose(1, 2)) / dec_output.size(-1) ** 0.5
    attention = attention.masked_fill_(context_attn_mask, float("-inf"))
    return torch.bmm(torch.softmax(attention, dim=2), enc_outputs)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    src_seq = torch.tensor([[3, 4, 0, 0], [5, 6, 7, 0]])
    tgt_seq = torch.tensor([[1, 2, 3, 0], [1, 2, 0, 0]])
    dec_output = torch.randn(2, 4, 8)
    enc_outputs = torch.randn(2, 4, 8)
    return context_attention(dec_output, enc_outputs, src_seq, tgt_seq)
