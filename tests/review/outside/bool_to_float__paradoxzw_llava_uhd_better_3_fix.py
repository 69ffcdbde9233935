"""The boolean patch mask is turned into the additive form CLIPAttention expects (0 for a valid token, the dtype's minimum for padding) before it is passed to the encoder.

Report: https://github.com/ParadoxZW/LLaVA-UHD-Better/issues/3
Class: bool_to_float
"""

import torch
from torch import nn


class CLIPAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = self.head_dim**-0.5
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)

    def _shape(self, tensor, seq_len, bsz):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, hidden_states, attention_mask=None):
        bsz, tgt_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states) * self.scale
        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        query_states = self._shape(query_states, tgt_len, bsz).view(*proj_shape)
        key_states = self._shape(self.k_proj(hidden_states), -1, bsz).view(*proj_shape)
        src_len = key_states.size(1)
        attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
        if attention_mask is not None:
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        return nn.functional.softmax(attn_weights, dim=-1)


def slice_attention_mask(sizes, num_positions, dtype=torch.float32):
    masks = []
    for w, h in sizes:
        m = torch.zeros(num_positions, dtype=torch.bool)
        m[: w * h + 1] = True  # the first token is for CLS
        masks.append(m)
    keep = torch.stack(masks)[:, None, None, :]
    return torch.zeros(keep.shape, dtype=dtype).masked_fill(~keep, torch.finfo(dtype).min)


def run() -> torch.Tensor:
    torch.manual_seed(0)
    attn = CLIPAttention(embed_dim=8, num_heads=2)
    hidden_states = torch.randn(2, 5, 8)  # CLS + up to 4 patches per slice
    attention_mask = slice_attention_mask([(2, 1), (2, 2)], num_positions=5)
    return attn(hidden_states, attention_mask=attention_mask)
