"""make_pad_mask takes the pad ids of its query and key sides, and the target masks are built with self.trg_pad_idx, as the pull request for the report does.

Report: https://github.com/hyunwoongko/transformer/issues/11
Class: polarity
"""

import math

import torch
from torch import nn


class ScaleDotProductAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, q, k, v, mask=None, e=1e-12):
        batch_size, head, length, d_tensor = k.size()
        k_t = k.transpose(2, 3)
        score = (q @ k_t) / math.sqrt(d_tensor)
        if mask is not None:
            score = score.masked_fill(mask == 0, -10000)
        score = self.softmax(score)
        v = score @ v
        return v, score


class Transformer(nn.Module):
    def __init__(self, src_pad_idx, trg_pad_idx, trg_voc_size, d_model):
        super().__init__()
        self.src_pad_idx = src_pad_idx
        self.trg_pad_idx = trg_pad_idx
        self.trg_emb = nn.Embedding(trg_voc_size, d_model)
        self.attention = ScaleDotProductAttention()
        self.device = torch.device("cpu")

    def decoder_self_attention(self, trg):
        trg_mask = self.make_pad_mask(trg, trg, self.trg_pad_idx, self.trg_pad_idx) * self.make_no_peak_mask(trg, trg)
        x = self.trg_emb(trg)[:, None]  # batch_size x 1 head x length x d_model
        out, _ = self.attention(x, x, x, mask=trg_mask)
        return out

    def make_pad_mask(self, q, k, q_pad_idx, k_pad_idx):
        len_q, len_k = q.size(1), k.size(1)
        # batch_size x 1 x 1 x len_k
        k = k.ne(k_pad_idx).unsqueeze(1).unsqueeze(2)
        # batch_size x 1 x len_q x len_k
        k = k.repeat(1, 1, len_q, 1)
        # batch_size x 1 x len_q x 1
        q = q.ne(q_pad_idx).unsqueeze(1).unsqueeze(3)
        # batch_size x 1 x len_q x len_k
        q = q.repeat(1, 1, 1, len_k)
        mask = k & q
        return mask

    def make_no_peak_mask(self, q, k):
        len_q, len_k = q.size(1), k.size(1)
        # len_q x len_k
        mask = torch.tril(torch.ones(len_q, len_k)).type(torch.BoolTensor).to(self.device)
        return mask


def run() -> torch.Tensor:
    torch.manual_seed(0)
    model = Transformer(src_pad_idx=1, trg_pad_idx=2, trg_voc_size=10, d_model=8)
    # target vocabulary: 2 = <pad>, 1 = an ordinary word
    trg = torch.tensor([[3, 1, 4, 5, 2, 2]])
    return model.decoder_self_attention(trg)
