"""BiMultiHeadAttention fills a boolean attention_mask_l with -9e15 through masked_fill, which keeps it boolean (every entry becomes True), then adds it to the weights, so every position gets +1 and no padded token is masked.

Report: https://github.com/open-mmlab/mmdetection/issues/12351
Class: bool_to_float
Decidable: values
"""

import torch
from torch import nn


class BiMultiHeadAttention(nn.Module):
    def __init__(self, v_dim, l_dim, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = self.head_dim ** (-0.5)
        self.v_proj = nn.Linear(v_dim, embed_dim)
        self.l_proj = nn.Linear(l_dim, embed_dim)

    def _shape(self, tensor, seq_len, bsz):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, vision, lang, attention_mask_l=None):
        bsz, tgt_len, _ = vision.size()
        query_states = self.v_proj(vision) * self.scale
        key_states = self._shape(self.l_proj(lang), -1, bsz)
        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        query_states = self._shape(query_states, tgt_len, bsz).view(*proj_shape)
        key_states = key_states.view(*proj_shape)
        src_len = key_states.size(1)
        attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))

        if attention_mask_l is not None:
            assert attention_mask_l.dim() == 2
            attention_mask = attention_mask_l.unsqueeze(1).unsqueeze(1)
            attention_mask = attention_mask.expand(bsz, 1, tgt_len, src_len)
            attention_mask = attention_mask.masked_fill(attention_mask == 0, -9e15)  # bug
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask  # bug
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)

        attn_weights_l = nn.functional.softmax(attn_weights, dim=-1)
        return attn_weights_l


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = BiMultiHeadAttention(v_dim=8, l_dim=8, embed_dim=8, num_heads=2)
    vision = torch.randn(2, 3, 8)
    lang = torch.randn(2, 4, 8)
    attention_mask_l = torch.tensor([[False, False, True, True], [False, False, False, True]])  # True = padding
    return attn(vision, lang, attention_mask_l)
